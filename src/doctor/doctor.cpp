#include "doctor/doctor.hpp"

#include <fmt/format.h>

#include "doctor/checks.hpp"

namespace gpuwatch::doctor {

namespace {

std::string count_of(int n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); }

std::string summary_of(const DoctorInput& input, const std::vector<Check>& checks, HostCause cause) {
  int problems = 0, warnings = 0;
  const Check* first_problem = nullptr;
  for (const auto& c : checks) {
    if (c.verdict == Verdict::Problem) {
      ++problems;
      if (first_problem == nullptr) first_problem = &c;
    }
    if (c.verdict == Verdict::Warning) ++warnings;
  }
  std::string lead;
  if (!input.nvml.loaded && input.nvml.answered) {
    switch (cause) {
      case HostCause::ContainerWithoutDevices:
        lead = "No NVIDIA driver or GPU is usable here: this container has no GPU device. ";
        break;
      case HostCause::ModuleNotLoaded: lead = "No NVIDIA driver is loaded on this machine. "; break;
      case HostCause::VersionMismatch: lead = "The NVIDIA driver and its library disagree (version mismatch). "; break;
      default: lead = "NVML, the NVIDIA driver's library, cannot be used here. "; break;
    }
  }
  if (problems == 0 && warnings == 0) return lead + fmt::format("All {} checks OK.", checks.size());
  std::string tally = problems > 0 && warnings > 0 ? count_of(problems, "problem") + ", " + count_of(warnings, "warning")
                      : problems > 0               ? count_of(problems, "problem")
                                                   : count_of(warnings, "warning");
  return lead + tally + (first_problem ? fmt::format(" (first: {}).", first_problem->id) : ".");
}

}  // namespace

DoctorReport run_checks(const DoctorInput& input) {
  const HostCause cause = host_cause(input.host, input.nvml);
  DoctorReport report;
  auto& c = report.checks;
  c.push_back(check_nvml_library(input.host, input.nvml, cause));
  c.push_back(check_kernel_module(input.host, cause));
  c.push_back(check_device_nodes(input.host, cause));
  c.push_back(check_container(input.host));
  c.push_back(check_visible_devices(input.host, input.nvml));
  c.push_back(check_gpus_respond(input.nvml, input.deadline));
  c.push_back(check_persistence(input.nvml));
  c.push_back(check_mig(input.nvml));
  c.push_back(check_ecc(input.nvml));
  c.push_back(check_pcie_link(input.nvml));
  c.push_back(check_power_limit(input.nvml));
  c.push_back(check_clocks(input.nvml));
  c.push_back(check_compute_mode(input.nvml));
  c.push_back(check_fabric(input.nvml));
  c.push_back(check_kernel_xids(input.host, input.nvml));
  c.push_back(check_slot_temperatures(input.nvml));
  c.push_back(check_monitoring(input.monitoring));
  report.exit_code = exit_code_of(c);
  report.summary = summary_of(input, c, cause);
  return report;
}

}  // namespace gpuwatch::doctor
