#pragma once
// Success does not mean valid (STYLE rule 6): values that NVML returns but that
// mean nothing are marked NotApplicable here. Each rule is unit-tested.
#include "core/snapshot.hpp"

namespace gpuwatch::sampler {

// - memory.total == 0: every memory.* field is NotApplicable (nvtop's SIGFPE).
// - memory.used/reserved larger than memory.total: NotApplicable.
// - a process's used memory larger than memory.total: unknown (nullopt).
void apply_sanity_rules(core::DeviceSnapshot& device);

}  // namespace gpuwatch::sampler
