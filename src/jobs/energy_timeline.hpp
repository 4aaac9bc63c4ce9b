#pragma once
// One GPU's energy over the job, sample by sample, so that energy can be cut at any instant
// afterwards (a training step's start and end, an hour of the day, the time a finding was
// active). Each point keeps the energy counter, the power and the state the waste split needs
// (utilization, memory used, throttled). Bounded: past kMaxTimelinePoints every other point is
// dropped (the resolution halves, the whole job stays covered). Pure logic.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/snapshot.hpp"

namespace gpuwatch::jobs {

using TimePoint = std::chrono::system_clock::time_point;

// How often the driver's total energy counter (NVML's total energy consumption, mJ) moves: "every
// 20-100 ms" on recent boards (PETSc's PetscLogGpuEnergyMeter notes; Zeus v0.6.1 returns 0 J for a
// window shorter than the update period). The simulator's counter is continuous. A step shorter
// than this has no measured energy of its own: it is flagged, its energy is interpolated.
inline constexpr double kEnergyCounterUpdatePeriodS = 0.100;

// "Idle with memory held": utilization below this ratio (0 % as NVML rounds it) with more than
// kIdleMemoryHeldBytes of memory in use (a CUDA context alone holds a few hundred MiB).
inline constexpr double kIdleUtilizationBelow = 0.005;
inline constexpr std::uint64_t kIdleMemoryHeldBytes = 1024ull * 1024 * 1024;

inline constexpr std::size_t kMaxTimelinePoints = 36'000;  // per GPU, ~80 B each: 10 h at 1 s before the first halving

struct EnergyPoint {
  TimePoint at;
  std::optional<double> counter_j;  // the cumulative energy counter
  std::optional<double> power_w;
  std::optional<double> utilization;  // ratio 0..1
  std::optional<std::uint64_t> memory_used_bytes;
  bool throttled = false;  // a clock event reason of throttle_reasons() was active (not idle, not app clocks)
  // The part of the GPU's energy since the previous point that is counted (0..1): 1 for a job that
  // had the GPU alone; 1/N while N owners shared it (history/owner_energy.hpp splits it evenly).
  double share = 1.0;
};

struct EnergyTimeline {
  std::vector<EnergyPoint> points;
  std::size_t halvings = 0;  // how often the resolution was halved
};

// Appends the sample of DEVICE taken at AT (halving the timeline when it is full).
void add_point(EnergyTimeline& timeline, const core::DeviceSnapshot& device, TimePoint at);
void add_point(EnergyTimeline& timeline, EnergyPoint point);

// Where a GPU's energy comes from: the counter (read at two points at least and never going back)
// or power integrated by trapezoids (gaps over kMaxIntegrationGapS not integrated): "estimated".
enum class EnergySource { Counter, Estimated };
const char* to_string(EnergySource source);  // "counter", "estimated"

// The energy used since the first point, at every point (joules, non-decreasing): the counter's
// increase, or the running integral of power, each step since the previous point times the
// point's share. Points that cannot be placed (no counter reading in
// counter mode) are left out.
struct CumulativeEnergy {
  EnergySource source = EnergySource::Counter;
  std::vector<TimePoint> at;
  std::vector<double> joules;
  std::vector<std::size_t> point;  // the index in the timeline's points of each entry
  double total() const { return joules.empty() ? 0 : joules.back(); }
  // The energy used from the first point to T, interpolated linearly between points; nullopt
  // outside [first, last].
  std::optional<double> at_time(TimePoint t) const;
};
std::optional<CumulativeEnergy> cumulative_energy(const EnergyTimeline& timeline);

}  // namespace gpuwatch::jobs
