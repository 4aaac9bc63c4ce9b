#pragma once
// Which of a scenario's GPUs belong to a vendor. Every simulated interface serves only its own
// vendor's GPUs: the NVML driver the NVIDIA ones (its index i = the i-th NVIDIA GPU of the
// scenario), the vendor tree AMD's and Intel's, the Level Zero driver Intel's. Everything keyed
// by a GPU in a scenario (faults' `gpu:`, processes, GPUWATCH_SIM_PIDS "gpu:proc=pid", events)
// keeps using the scenario index, so a fault on an AMD GPU never lands on an NVIDIA one.
#include <optional>
#include <vector>

#include "core/read_error.hpp"
#include "sim/engine/scenario.hpp"

namespace gpuwatch::sim {

// The scenario indices of VENDOR's GPUs, in scenario order.
inline std::vector<unsigned> gpus_of_vendor(const Scenario& scenario, core::Vendor vendor) {
  std::vector<unsigned> out;
  for (unsigned i = 0; i < scenario.gpus.size(); ++i)
    if (scenario.gpus[i].vendor == vendor) out.push_back(i);
  return out;
}

// The position of scenario GPU SCENARIO_INDEX among its vendor's GPUs (the index that vendor's
// interface gives it), or nullopt when it is not one of VENDOR's GPUs.
inline std::optional<unsigned> vendor_index_of(const Scenario& scenario, core::Vendor vendor,
                                               unsigned scenario_index) {
  if (scenario_index >= scenario.gpus.size() || scenario.gpus[scenario_index].vendor != vendor) return std::nullopt;
  unsigned position = 0;
  for (unsigned i = 0; i < scenario_index; ++i)
    if (scenario.gpus[i].vendor == vendor) ++position;
  return position;
}

}  // namespace gpuwatch::sim
