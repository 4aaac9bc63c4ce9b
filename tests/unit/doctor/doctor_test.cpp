// run_checks: the order, the one cause for one fault, the exit codes, the summary.
#include "doctor/doctor.hpp"

#include <gtest/gtest.h>

#include "doctor/checks.hpp"
#include "unit/doctor/doctor_facts.hpp"

namespace gpuwatch::doctor {
namespace doctor_test {

using testing::healthy_host;
using testing::healthy_nvml;

DoctorInput healthy_input(unsigned gpus = 2) {
  DoctorInput input;
  input.host = healthy_host(gpus);
  input.nvml = healthy_nvml(gpus);
  return input;
}

const Check& find(const DoctorReport& report, const std::string& id) {
  for (const auto& c : report.checks)
    if (c.id == id) return c;
  throw std::runtime_error("no check " + id);
}

std::vector<std::string> problems(const DoctorReport& report) {
  std::vector<std::string> ids;
  for (const auto& c : report.checks)
    if (c.verdict == Verdict::Problem) ids.push_back(c.id);
  return ids;
}

TEST(Doctor, AHealthyNodeIsAllOkInTheDocumentedOrder) {
  auto report = run_checks(healthy_input());
  const std::vector<std::string> order = {
      "nvml.library", "kernel.module", "kernel.device_nodes", "container.devices", "env.visible_devices",
      "gpu.responding", "gpu.persistence_mode", "gpu.mig_mode", "gpu.ecc", "gpu.pcie_link", "gpu.power_limit",
      "gpu.clocks", "gpu.compute_mode", "gpu.fabric", "node.xids", "node.slot_temperatures", "node.monitoring"};
  ASSERT_EQ(report.checks.size(), order.size());
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(report.checks[i].id, order[i]);
  for (const auto& c : report.checks) EXPECT_NE(c.verdict, Verdict::Warning) << c.id << ": " << c.evidence;
  EXPECT_TRUE(problems(report).empty());
  EXPECT_EQ(report.exit_code, 0);
  EXPECT_EQ(report.summary, "All 17 checks OK.");
}

TEST(Doctor, AMissingModuleIsTheOneProblemAndNvmlFollowsFromIt) {
  auto input = healthy_input();
  input.host.module_version.reset();
  input.host.module_listed = false;
  input.host.device_nodes.clear();
  input.nvml = NvmlFacts{};
  input.nvml.error = "NVML found (libnvidia-ml.so.1) but initialisation failed: Driver Not Loaded (NVML error 9).";
  input.nvml.error_code = 9;
  auto report = run_checks(input);
  EXPECT_EQ(problems(report), std::vector<std::string>{"kernel.module"});
  EXPECT_NE(find(report, "kernel.module").fix.find("modprobe nvidia"), std::string::npos);
  EXPECT_EQ(find(report, "nvml.library").verdict, Verdict::Skipped);
  EXPECT_NE(find(report, "nvml.library").evidence.find("follows from kernel.module"), std::string::npos);
  EXPECT_EQ(find(report, "kernel.device_nodes").verdict, Verdict::Skipped);
  EXPECT_EQ(report.exit_code, 2);
  EXPECT_EQ(report.summary.rfind("No NVIDIA driver is loaded on this machine.", 0), 0u) << report.summary;
}

TEST(Doctor, AVersionMismatchIsNamedFromTheInitErrorOrFromTheVersions) {
  auto input = healthy_input();
  input.nvml = NvmlFacts{};
  input.nvml.error = "NVML found (x) but initialisation failed: Driver/library version mismatch (NVML error 18).";
  input.nvml.error_code = 18;
  input.host.module_version = "535.104.05";
  auto report = run_checks(input);
  EXPECT_EQ(problems(report), std::vector<std::string>{"nvml.library"});
  EXPECT_NE(find(report, "nvml.library").evidence.find("535.104.05"), std::string::npos);
  EXPECT_NE(find(report, "nvml.library").fix.find("reboot"), std::string::npos);

  auto loaded = healthy_input();
  loaded.host.module_version = "535.104.05";  // NVML says 550.90.07
  EXPECT_EQ(problems(run_checks(loaded)), std::vector<std::string>{"nvml.library"});
}

TEST(Doctor, ContainerWithoutDevicesExplainsTheMissingNodes) {
  auto input = healthy_input();
  input.host.container = "docker";
  input.host.device_nodes.clear();
  input.nvml = NvmlFacts{};
  input.nvml.error = "NVML library not found";
  input.nvml.library_found = false;
  auto report = run_checks(input);
  EXPECT_EQ(problems(report), std::vector<std::string>{"container.devices"});
  EXPECT_NE(find(report, "container.devices").fix.find("--gpus all"), std::string::npos);
  EXPECT_NE(find(report, "container.devices").fix.find("nvidia-ctk cdi generate"), std::string::npos);
  EXPECT_EQ(find(report, "kernel.device_nodes").verdict, Verdict::Skipped);
}

TEST(Doctor, DeviceNodesMissingOrClosed) {
  auto missing = healthy_input();
  missing.host.device_nodes.clear();
  EXPECT_EQ(problems(run_checks(missing)), std::vector<std::string>{"kernel.device_nodes"});
  auto closed = healthy_input();
  closed.host.device_nodes[0].accessible = false;
  auto report = run_checks(closed);
  EXPECT_EQ(problems(report), std::vector<std::string>{"kernel.device_nodes"});
  EXPECT_NE(find(report, "kernel.device_nodes").evidence.find("/dev/nvidia0"), std::string::npos);
}

TEST(Doctor, NvmlFailingWithNoHostCauseIsItsOwnProblem) {
  auto input = healthy_input();
  input.nvml = NvmlFacts{};
  input.nvml.error = "NVML library not found: cannot load libnvidia-ml.so.1 (no such file).";
  input.nvml.library_found = false;
  auto report = run_checks(input);
  EXPECT_EQ(problems(report), std::vector<std::string>{"nvml.library"});
  EXPECT_NE(find(report, "nvml.library").fix.find("Install the NVIDIA driver"), std::string::npos);
  // Every GPU check is skipped, none fails.
  EXPECT_EQ(find(report, "gpu.persistence_mode").verdict, Verdict::Skipped);
}

TEST(Doctor, AHungNvmlInitIsAProblemNotAWait) {
  auto input = healthy_input();
  input.nvml = NvmlFacts{};
  input.nvml.answered = false;
  input.nvml.init_time = std::chrono::milliseconds(1200);
  auto report = run_checks(input);
  EXPECT_EQ(find(report, "nvml.library").verdict, Verdict::Problem);
  EXPECT_NE(find(report, "nvml.library").evidence.find("1200 ms"), std::string::npos);
}

TEST(Doctor, ExitCodesAreWorstVerdict) {
  EXPECT_EQ(exit_code_of({}), 0);
  EXPECT_EQ(exit_code_of({Check{"a", "", Verdict::Skipped, "", "", {}}, Check{"b", "", Verdict::Ok, "", "", {}}}), 0);
  EXPECT_EQ(exit_code_of({Check{"a", "", Verdict::Warning, "", "", {}}}), 1);
  EXPECT_EQ(exit_code_of({Check{"a", "", Verdict::Problem, "", "", {}}, Check{"b", "", Verdict::Warning, "", "", {}}}), 2);
  auto input = healthy_input();
  input.nvml.gpus[1].persistence = false;
  auto report = run_checks(input);
  EXPECT_EQ(report.exit_code, 1);
  EXPECT_EQ(report.summary, "1 warning.");
}

}  // namespace doctor_test
}  // namespace gpuwatch::doctor
