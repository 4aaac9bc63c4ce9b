#pragma once
// imbalance: the GPUs of one job (the same process name on each) differ strongly in mean
// utilization. Cross-GPU, so it runs once per snapshot after the per-GPU checks.
#include <map>
#include <set>

#include "diagnose/finding_tracker.hpp"
#include "diagnose/gpu_state.hpp"

namespace gpuwatch::diagnose {

// OPEN_KEYS: the imbalance keys evaluated before (kept by the caller between snapshots).
void check_imbalance(FindingTracker& tracker, const std::map<unsigned, GpuState>& gpus, double t_s,
                     std::set<TrackKey>& open_keys);

}  // namespace gpuwatch::diagnose
