#pragma once
// `gpuwatch doctor`: every check, in order, over the facts; and the one-line summary.
#include <chrono>
#include <string>
#include <vector>

#include "doctor/check.hpp"
#include "doctor/facts.hpp"

namespace gpuwatch::doctor {

struct DoctorInput {
  HostFacts host;
  NvmlFacts nvml;
  MonitoringFacts monitoring;
  std::chrono::milliseconds deadline{1200};  // what each GPU had to answer
};

struct DoctorReport {
  std::vector<Check> checks;
  std::string summary;  // plain words: "No NVIDIA driver is usable here: ...", "All N checks OK."
  int exit_code = 0;    // 0 all OK, 1 warnings, 2 problems
};

DoctorReport run_checks(const DoctorInput& input);

}  // namespace gpuwatch::doctor
