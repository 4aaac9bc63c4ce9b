// The per-GPU checks, each broken on one GPU of a healthy node.
#include <gtest/gtest.h>

#include "doctor/checks.hpp"
#include "unit/doctor/doctor_facts.hpp"

namespace gpuwatch::doctor {
namespace gpu_checks_test {

using testing::healthy_nvml;

bool mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(DoctorGpuChecks, HealthyGpusPassEveryTopic) {
  const auto nvml = healthy_nvml(4);
  for (const Check& c : {check_gpus_respond(nvml, std::chrono::milliseconds(1200)), check_persistence(nvml), check_mig(nvml),
                         check_ecc(nvml), check_pcie_link(nvml), check_power_limit(nvml), check_clocks(nvml),
                         check_compute_mode(nvml), check_fabric(nvml)}) {
    EXPECT_EQ(c.verdict, Verdict::Ok) << c.id << ": " << c.evidence;
    EXPECT_TRUE(c.gpus.empty()) << c.id;
  }
}

TEST(DoctorGpuChecks, AHungOrLostGpuIsNamed) {
  auto nvml = healthy_nvml(4);
  nvml.gpus[1].answered = false;
  nvml.gpus[3].lost = "GPU is lost";
  auto c = check_gpus_respond(nvml, std::chrono::milliseconds(1200));
  EXPECT_EQ(c.verdict, Verdict::Problem);
  EXPECT_EQ(c.gpus, (std::vector<unsigned>{1, 3}));
  EXPECT_TRUE(mentions(c.evidence, "GPU 1 did not answer within 1200 ms")) << c.evidence;
  EXPECT_TRUE(mentions(c.evidence, "GPU 3 cannot be reached: GPU is lost")) << c.evidence;
  // The other topics look at the GPUs that answered only.
  nvml.gpus[1].persistence = false;
  EXPECT_EQ(check_persistence(nvml).verdict, Verdict::Ok);
}

TEST(DoctorGpuChecks, NoGpuAtAllIsAProblem) {
  auto nvml = healthy_nvml(0);
  EXPECT_EQ(check_gpus_respond(nvml, std::chrono::milliseconds(1)).verdict, Verdict::Problem);
  EXPECT_EQ(check_persistence(nvml).verdict, Verdict::Skipped);
}

TEST(DoctorGpuChecks, PersistenceOffQuotesTheFirstCallsCost) {
  auto nvml = healthy_nvml(4);
  nvml.init_time = std::chrono::milliseconds(512);
  for (auto& g : nvml.gpus) g.persistence = false;
  auto c = check_persistence(nvml);
  EXPECT_EQ(c.verdict, Verdict::Warning);
  EXPECT_TRUE(mentions(c.evidence, "Off on GPUs 0-3")) << c.evidence;
  EXPECT_TRUE(mentions(c.evidence, "512 ms")) << c.evidence;
  EXPECT_TRUE(mentions(c.fix, "nvidia-persistenced"));
  for (auto& g : nvml.gpus) g.persistence.reset();
  EXPECT_EQ(check_persistence(nvml).verdict, Verdict::Skipped);  // unknown is not "off"
}

TEST(DoctorGpuChecks, MigOnExplainsTheNaAndAPendingChangeWarns) {
  auto nvml = healthy_nvml(2);
  nvml.gpus[0].mig_current = nvml.gpus[0].mig_pending = true;
  auto on = check_mig(nvml);
  EXPECT_EQ(on.verdict, Verdict::Ok);
  EXPECT_EQ(on.gpus, std::vector<unsigned>{0});
  EXPECT_TRUE(mentions(on.evidence, "N/A")) << on.evidence;
  EXPECT_TRUE(mentions(on.fix, "instances"));
  nvml.gpus[1].mig_pending = true;
  EXPECT_EQ(check_mig(nvml).verdict, Verdict::Warning);
  EXPECT_EQ(check_mig(nvml).gpus, std::vector<unsigned>{1});
}

TEST(DoctorGpuChecks, PendingRemapsNeedAResetAndAFailedRemapAService) {
  auto nvml = healthy_nvml(2);
  nvml.gpus[1].remap_pending = true;
  auto pending = check_ecc(nvml);
  EXPECT_EQ(pending.verdict, Verdict::Problem);
  EXPECT_EQ(pending.gpus, std::vector<unsigned>{1});
  EXPECT_TRUE(mentions(pending.fix, "nvidia-smi -r"));
  nvml.gpus[1].remap_pending = false;
  nvml.gpus[1].retired_pages_pending = true;
  EXPECT_EQ(check_ecc(nvml).verdict, Verdict::Problem);
  nvml.gpus[0].remap_failure = true;
  EXPECT_TRUE(mentions(check_ecc(nvml).fix, "RMA"));
  auto mode = healthy_nvml(1);
  mode.gpus[0].ecc_pending = false;
  EXPECT_EQ(check_ecc(mode).verdict, Verdict::Warning);
}

TEST(DoctorGpuChecks, ADegradedLinkCountsGenerationOnlyUnderLoad) {
  auto nvml = healthy_nvml(2);
  nvml.gpus[1].pcie_width = 8u;
  auto narrow = check_pcie_link(nvml);
  EXPECT_EQ(narrow.verdict, Verdict::Warning);
  EXPECT_TRUE(mentions(narrow.evidence, "GPU 1 runs Gen5 x8 of Gen5 x16")) << narrow.evidence;
  auto idle = healthy_nvml(1);
  idle.gpus[0].pcie_gen = 1u;  // trained down at idle: normal
  idle.gpus[0].utilization_ratio = 0.0;
  EXPECT_EQ(check_pcie_link(idle).verdict, Verdict::Ok);
  idle.gpus[0].utilization_ratio = 0.9;
  EXPECT_EQ(check_pcie_link(idle).verdict, Verdict::Warning);
}

TEST(DoctorGpuChecks, PowerClocksComputeModeAndFabric) {
  auto nvml = healthy_nvml(2);
  nvml.gpus[0].power_limit_w = 500.0;
  EXPECT_TRUE(mentions(check_power_limit(nvml).evidence, "GPU 0 500 W of 700 W"));
  nvml.gpus[1].app_clock_mhz = 1200u;
  EXPECT_TRUE(mentions(check_clocks(nvml).evidence, "GPU 1 1200 MHz (default 1620 MHz)"));
  nvml.gpus[1].compute_mode = 2;
  EXPECT_TRUE(mentions(check_compute_mode(nvml).evidence, "prohibited"));
  nvml.gpus[0].fabric_state = 2u;  // in progress
  auto fabric = check_fabric(nvml);
  EXPECT_EQ(fabric.verdict, Verdict::Problem);
  EXPECT_TRUE(mentions(fabric.fix, "nvidia-fabricmanager"));
  EXPECT_TRUE(mentions(fabric.fix, "550.90.07"));
  for (auto& g : nvml.gpus) g.fabric_state = 0u;
  EXPECT_EQ(check_fabric(nvml).verdict, Verdict::Ok);
}

TEST(DoctorGpuChecks, GpuListsAreRanges) {
  EXPECT_EQ(gpu_list({0, 1, 2, 3, 5, 7, 8}), "0-3, 5, 7-8");
  EXPECT_EQ(gpu_list({}), "");
}

}  // namespace gpu_checks_test
}  // namespace gpuwatch::doctor
