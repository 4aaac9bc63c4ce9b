#pragma once
// What a job's summary needs from one GPU's samples, accumulated sample by sample in constant
// memory (a utilization histogram, first/last counters, running sums): fed from the sampling
// thread of that GPU, read once at the end. Absent stays absent: a field a GPU never reported
// gives no number. Pure logic over core::DeviceSnapshot.
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "core/snapshot.hpp"
#include "jobs/energy_timeline.hpp"

namespace gpuwatch::jobs {


// The fields a job's summary reads (the sampler adds them to what it reads anyway).
const std::vector<core::FieldId>& summary_fields();

// A clock event reason: its name, its "active now" field and its cumulative counter (if NVML has one).
struct ThrottleReason {
  const char* name;  // "hw_thermal_slowdown"
  core::FieldId active;
  std::optional<core::FieldId> counter;
};
const std::vector<ThrottleReason>& throttle_reasons();

struct ThrottleStats {
  std::optional<double> counter_first_s, counter_last_s;  // the cumulative counter
  double sampled_s = 0;      // time the reason was active, from the samples (when no counter)
  bool seen = false;         // the reason was read at least once
};

// One MIG device the job used on this GPU.
struct MigUse {
  std::string uuid, profile;
  std::uint32_t gpu_instance_id = 0;
  std::optional<std::uint64_t> memory_peak_bytes, memory_total_bytes;
};

struct DeviceStats {
  unsigned index = 0;
  std::string uuid, name;
  std::size_t samples = 0;
  std::optional<TimePoint> first, last;
  bool used = false;                                   // a process of the job was seen here
  std::set<std::uint32_t> pids;                        // the job's processes seen on it
  std::map<std::uint32_t, MigUse> mig;                 // by GPU instance id: MIG devices the job used
  std::array<std::uint64_t, 101> util_histogram{};     // utilization.gpu in whole percent
  std::size_t util_samples = 0;
  double sm_active_sum = 0, tensor_active_sum = 0;     // GPM ratios
  std::size_t sm_active_samples = 0, tensor_active_samples = 0;
  std::optional<double> energy_first_j, energy_last_j; // the energy counter
  bool energy_counter_reset = false;                   // it went backwards: not usable
  double power_integral_j = 0;                         // trapezoids between samples with power
  double power_covered_s = 0;
  std::optional<double> last_power_w;
  std::optional<TimePoint> last_power_at;
  std::optional<std::uint64_t> memory_peak_bytes, memory_total_bytes;
  std::map<std::string, ThrottleStats> throttle;       // by reason name
  std::optional<TimePoint> last_throttle_at;
  EnergyTimeline energy_timeline;                      // bounded: cut per step, hour, state (energy_report.hpp)
};

// A gap between two samples longer than this is not integrated (power, sampled throttle time).
inline constexpr double kMaxIntegrationGapS = 30;

// Adds one sample of the GPU taken at AT. JOB_PIDS: the PIDs of this device's processes that
// belong to the job (already decided by the caller: ProcessTree + CUDA_VISIBLE_DEVICES);
// JOB_INSTANCES: the GPU instance ids of the MIG devices they run in.
void observe(DeviceStats& stats, const core::DeviceSnapshot& device, TimePoint at,
             const std::set<std::uint32_t>& job_pids, const std::set<std::uint32_t>& job_instances);

// Nearest-rank percentile (0..1) of the utilization histogram, as a ratio; nullopt without samples.
std::optional<double> utilization_percentile(const DeviceStats& stats, double q);
std::optional<double> utilization_mean(const DeviceStats& stats);

// Energy of the job on this GPU: from the counter when it was read at two samples and never went
// back, else the integrated power; SOURCE says which ("counter", "estimated": issue 29's word, was "integrated_power").
struct Energy {
  double joules = 0;
  const char* source = "";
};
std::optional<Energy> energy_of(const DeviceStats& stats);

// Seconds throttled per reason (counter delta where the GPU has the counter, else sampled time);
// only reasons that were read, and only those above zero.
std::map<std::string, double> throttle_seconds(const DeviceStats& stats);

}  // namespace gpuwatch::jobs
