#pragma once
// The doctor's NVML edge (NVIDIA's driver probe, filling the doctor's plain facts): loads NVML, times the first call, and reads each GPU's setup (modes,
// link, limits, fabric) into NvmlFacts, within a deadline. Loading runs on its own thread and
// each GPU on its own, so a hung GPU (or a hung nvmlInit) costs the deadline, not the run: what
// has not answered by then is reported as not answering, its thread left inside NVML and
// counted (backend/abandoned_calls.hpp) so that the command ends with _Exit (cli/hung_exit.hpp).
#include <chrono>
#include <string>

#include "doctor/facts.hpp"

namespace gpuwatch::nvml {

struct ProbeOptions {
  std::string library;                          // --nvml-library; empty: libnvidia-ml.so.1
  std::chrono::milliseconds deadline{1200};     // for loading and every GPU together
};

doctor::NvmlFacts probe_nvml(const ProbeOptions& options);

// The NVML return code in a loader message ("... (NVML error 18)."), 0 when none.
int nvml_error_in_message(const std::string& message);

}  // namespace gpuwatch::nvml
