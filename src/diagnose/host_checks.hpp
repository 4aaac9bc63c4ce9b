#pragma once
// The checks that read the host (issue 25) beyond input_starved's cause and low_utilization's words:
//   comm_bound (comm_bound_check.cpp, a job-level check, after imbalance, before the per-GPU
//     checks): the GPUs of one job dip together, periodically, while the network or InfiniBand is
//     busy in the dips and not outside them; sets GpuState::comm_bound on its GPUs (they are not
//     also called input-starved nor underused).
//   host_memory_pressure (memory_checks.cpp, once per snapshot): swapping or memory stalls while a
//     process holds a GPU.
// Both say nothing without host samples (snapshot.host null): their windows stay empty.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "diagnose/finding_tracker.hpp"
#include "diagnose/gpu_state.hpp"
#include "diagnose/host_view.hpp"
#include "diagnose/jobs.hpp"

namespace gpuwatch::diagnose {

// A job's co-dips and links, per snapshot in which every member was read with a process on it.
enum CommChannel : std::size_t {
  kCommN, kCommMinIdleSum, kCommMaxIdleSum, kCommMeanIdleSum,
  kCommNetDipW, kCommNetDipSum, kCommNetOutW, kCommNetOutSum,
  kCommIbDipW, kCommIbDipSum, kCommIbOutW, kCommIbOutSum,
  kCommChannelCount
};
struct JobCommState {
  SlidingSums<kCommChannelCount> window{thresholds::kLongWindowS};
  double last_s = kNever;
  std::size_t members = 0;  // the member count the window was made with (a change starts it over)
};

struct CommBoundState {
  std::map<std::uint64_t, JobCommState> jobs;  // by JobTrack::key
  std::set<TrackKey> open_keys;                // the comm_bound keys evaluated before
};

void check_comm_bound(FindingTracker& tracker, std::map<unsigned, GpuState>& gpus, const std::vector<JobTrack>& jobs,
                      const HostView& host, double t_s, CommBoundState& state);

enum HostMemoryChannel : std::size_t {
  kMemHostN, kSwapN, kSwapSum, kSwappingN, kMemSomeN, kMemSomeSum, kMemFullN, kMemFullSum, kHostMemoryChannelCount
};
struct HostMemoryState {
  SlidingSums<kHostMemoryChannelCount> window{thresholds::kShortWindowS};
  double last_s = kNever;
  std::optional<unsigned> key_gpu;  // the GPU its open finding is keyed by
};

// HELD: the GPUs of the snapshot a compute process holds.
void check_host_memory_pressure(FindingTracker& tracker, HostMemoryState& state, const HostView& host,
                                const std::vector<unsigned>& held, double t_s);

}  // namespace gpuwatch::diagnose
