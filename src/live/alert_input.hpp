#pragma once
// What serve's alert engine reads at each diagnosis tick, from what the tick read from the
// collector (never an NVML call): every GPU's latest sample with its age and staleness, its Xids,
// the findings active then, and the node's state (GPU count; the driver is taken as gone when
// every GPU's latest sample failed with "driver not loaded", "uninitialized" or an RM version
// mismatch).
#include <chrono>
#include <string>
#include <vector>

#include "alerts/engine.hpp"
#include "diagnose/finding.hpp"
#include "live/live_diagnosis.hpp"

namespace gpuwatch::live {

// INPUT must outlive the result (GPU inputs point into its snapshot).
alerts::TickInput make_alert_tick(const DiagnosisInput& input, const std::vector<diagnose::Finding>& findings,
                                  std::chrono::system_clock::time_point now, const std::string& host);

}  // namespace gpuwatch::live
