#pragma once
// The job-level checks: once per snapshot, after every GPU's windows took the sample and before
// the per-GPU checks, which read what these set on the GpuStates (in_collective_hang,
// waits_for_sibling) so that one cause per job is named once (issue 23).
//   collective_hang: the ranks of one job switched together from their working level to pinned
//     utilization at flat, much lower power; a rank that left or went idle is named as the cause.
//   imbalance: the GPUs of one job differ strongly in mean utilization; a saturated GPU is the
//     cause, the others wait for it (and are not also called input-starved).
#include <map>
#include <set>
#include <vector>

#include "diagnose/finding_tracker.hpp"
#include "diagnose/gpu_state.hpp"
#include "diagnose/jobs.hpp"

namespace gpuwatch::diagnose {

void check_collective_hang(FindingTracker& tracker, std::map<unsigned, GpuState>& gpus, std::vector<JobTrack>& jobs,
                           double t_s);

// OPEN_KEYS: the imbalance keys evaluated before (kept by the caller between snapshots).
void check_imbalance(FindingTracker& tracker, std::map<unsigned, GpuState>& gpus, const std::vector<JobTrack>& jobs,
                     double t_s, std::set<TrackKey>& open_keys);

// "GPU 3" / "GPUs 0,1,2" (job-level sentences).
std::string job_gpu_list(const std::vector<unsigned>& gpus);

}  // namespace gpuwatch::diagnose
