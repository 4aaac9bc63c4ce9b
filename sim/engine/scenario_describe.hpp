#pragma once
// Text for `gpuwatch sim show`: GPUs, processes, timeline, faults.
#include <string>

#include "sim/engine/scenario.hpp"

namespace gpuwatch::sim {
std::string describe(const Scenario& scenario);
}  // namespace gpuwatch::sim
