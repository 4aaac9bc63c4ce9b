#pragma once
// `gpuwatch sim record`: a scenario's timeline rendered through the real sampler on the
// simulated driver's virtual clock, hours of samples in seconds. The driver reads the time
// the recording sets (gpuwatchSimSetClock) instead of the wall clock; scenario time 0 is
// GPUWATCH_SIM_EPOCH_MS, which the caller sets to START before the driver loads.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "backend/device_backend.hpp"
#include "backend/simulated_tree.hpp"
#include "host_signals/host_sampler.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch::sim_session {

struct TimelinePlan {
  std::chrono::system_clock::time_point start, end;  // inclusive; tick k at start + k * interval
  std::chrono::milliseconds interval{1000};
  sampler::SampleOptions options;
  // Sample k > 0 is taken a seeded pseudo-random moment before its tick, uniform over one
  // interval (tick_jitter): a poller's phase against a periodic workload is never fixed, so no
  // exactly periodic scenario can alias (a 0.7 s busy / 0.3 s idle stall read every 1 s as
  // 100 % busy forever). The same seed gives the same moments: recordings are reproducible.
  std::uint64_t jitter_seed = 24;
};

// The simulated host of a scenario with `host: signals:` (issue 25): at each tick TREE is set to the
// tick's time and SAMPLER (reading the simulated host root) is sampled at the virtual steady time,
// the GPU processes' PIDs as the roots of its process trees, so the rates are the scenario's.
struct TimelineHost {
  std::shared_ptr<backend::SimulatedTree> tree;
  host_signals::HostSampler sampler;
};
// The host of a simulation whose host root has the simulated host's files (TREE renders them,
// HOST_ROOT holds proc/stat): nullopt without a tree, or when the scenario has no host signals
// (the root then has no proc/stat: sim record never reads the real machine's).
std::optional<TimelineHost> simulated_timeline_host(std::shared_ptr<backend::SimulatedTree> tree,
                                                    const std::string& host_root);

// How long before tick K of PLAN its sample is taken: 0 for the first, else in [0, interval).
std::chrono::milliseconds tick_jitter(const TimelinePlan& plan, std::size_t k);

// How many samples PLAN makes (at least one).
std::size_t timeline_sample_count(const TimelinePlan& plan);

// Samples every tick of PLAN in order (the driver's utilization sample buffer too, from the
// second tick: the backend's ProfilingReader::read_sample_buffer) and hands each snapshot (timestamp = the virtual time)
// to SINK. PROGRESS (optional) gets (done, total) now and then. The driver's clock is set
// back to the real one at the end. Error: BACKEND is not gpuwatch's simulated driver. HOST
// (optional): each snapshot carries the simulated host of its tick (Snapshot::host).
core::Result<std::size_t> record_timeline(const backend::DeviceBackend& backend, const TimelinePlan& plan,
                                          const std::function<void(const core::Snapshot&)>& sink,
                                          const std::function<void(std::size_t, std::size_t)>& progress = {},
                                          TimelineHost* host = nullptr);

}  // namespace gpuwatch::sim_session
