#pragma once
// `gpuwatch sim record`: a scenario's timeline rendered through the real sampler on the
// simulated driver's virtual clock, hours of samples in seconds. The driver reads the time
// the recording sets (gpuwatchSimSetClock) instead of the wall clock; scenario time 0 is
// GPUWATCH_SIM_EPOCH_MS, which the caller sets to START before the driver loads.
#include <chrono>
#include <cstddef>
#include <functional>

#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "nvml/nvml_library.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch::simulation {

struct TimelinePlan {
  std::chrono::system_clock::time_point start, end;  // inclusive; samples at start + k * interval
  std::chrono::milliseconds interval{1000};
  sampler::SampleOptions options;
};

// How many samples PLAN makes (at least one).
std::size_t timeline_sample_count(const TimelinePlan& plan);

// Samples every tick of PLAN in order and hands each snapshot (timestamp = the virtual time)
// to SINK. PROGRESS (optional) gets (done, total) now and then. The driver's clock is set
// back to the real one at the end. Error: LIBRARY is not gpuwatch's simulated driver.
core::Result<std::size_t> record_timeline(const nvml::NvmlLibrary& library, const TimelinePlan& plan,
                                          const std::function<void(const core::Snapshot&)>& sink,
                                          const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace gpuwatch::simulation
