#pragma once
// What the Diagnoser remembers about one GPU between snapshots: windowed sums of the
// per-sample signals (activity_window), memory trends per process, the last counter values
// (to see increases) and the Xids seen.
#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>

#include "diagnose/gpu_sample.hpp"
#include "diagnose/sliding_sums.hpp"
#include "diagnose/thresholds.hpp"
#include "diagnose/trend.hpp"

namespace gpuwatch::diagnose {

// Channels of the activity windows: per-sample contributions (counts, sums, seconds).
enum Channel : std::size_t {
  kSamples, kUtilN, kUtilSum, kIdleN, kBusyN, kPinnedN, kGapStarts, kIdleHeldN, kHeldN, kHeldUtilSum, kHeldUtilN,
  kPowerN, kPowerRatioSum, kSmN, kSmSum, kSmUtilSum, kMemUtilN, kMemUtilSum,
  kReasonN, kPowerCapN, kThermalN, kHwThermalN, kOtherN, kPowerCapClockLoss, kThermalClockLoss, kOtherClockLoss,
  kCounterDtPowerCap, kCounterDtThermal, kCounterDtOther, kCounterPowerCap, kCounterThermal, kCounterOther,
  kPcieLoadN, kPcieDegradedN, kUnattributedCheckN, kUnattributedN, kUnattributedBytesSum,
  kBufferN, kBufferIdleSum, kBufferGaps,  // the driver's sample buffer (while a process holds the GPU)
  kChannelCount
};
using Window = SlidingSums<kChannelCount>;

// Channels of a GPU's host window (issue 25): the host sample of each snapshot in which a process
// held the GPU, weighted by how idle the GPU was over it (the gap weight: the sample buffer's idle
// share, else 1 for an idle reading, 0 for a busy one). Per host metric: the gap weight where the
// metric was present and the weighted sum (the metric during the gaps), the count and the plain sum
// (over every held sample). Pushed only with a known host sample: the GPU windows stay as they were.
enum HostChannel : std::size_t {
  kHostN, kHostGapW,
  kCpuBusyGapW, kCpuBusyGapSum, kCpuBusyN, kCpuBusySum,
  kIowaitGapW, kIowaitGapSum, kIowaitN, kIowaitSum,
  kCpuPsiGapW, kCpuPsiGapSum, kCpuPsiN, kCpuPsiSum,
  kIoPsiGapW, kIoPsiGapSum, kIoPsiN, kIoPsiSum,
  kDiskBusyGapW, kDiskBusyGapSum, kDiskBusyN, kDiskBusySum,
  kTreeSatGapW, kTreeSatGapSum, kTreeSatN, kTreeSatSum,
  kTreeCoresGapW, kTreeCoresGapSum, kTreeCoresN, kTreeCoresSum,
  kTreeProcsN, kTreeProcsSum,
  kHostChannelCount
};
using HostWindow = SlidingSums<kHostChannelCount>;

inline constexpr double kNever = -std::numeric_limits<double>::infinity();

struct ProcessTrack {
  Trend memory{thresholds::kLongWindowS};
  double last_seen_s = 0;
  double last_bytes = -1;  // the latest memory reading (-1: none yet)
  std::string name;
};

struct XidRecord {
  std::uint64_t count = 0;
  double first_s = 0, last_s = 0;
};

// A run of samples at pinned utilization and power well below the GPU's own working level,
// entered straight from work (collective_hang's shape, spin_run.cpp). Sums over the run.
struct SpinRun {
  double work_power_ratio = 0;  // EWMA of power / limit over busy samples outside a run
  int work_samples = 0;
  double last_work_s = kNever;  // the last busy sample outside a run
  double since_s = kNever;      // first sample of the open run (kNever: none open)
  double last_s = kNever;       // its last spinning sample
  double from_power_ratio = 0;  // the working level it switched from
  double n = 0, power_sum = 0, power_sq_sum = 0, mem_n = 0, mem_sum = 0;
  bool open() const { return since_s != kNever; }
  double mean_power_ratio() const { return n > 0 ? power_sum / n : 0; }
  double power_std() const;
};

struct GpuState {
  Window short_w{thresholds::kShortWindowS};
  Window long_w{thresholds::kLongWindowS};
  Window recent_w{thresholds::kRecentWindowS};
  Trend device_memory{thresholds::kLongWindowS};
  HostWindow host_w{thresholds::kLongWindowS};  // the host over the long window (issue 25)
  double last_host_s = kNever;                  // the last sample that pushed host_w
  std::map<std::uint32_t, ProcessTrack> processes;
  std::map<std::uint64_t, XidRecord> xids;
  std::string uuid;
  core::Vendor vendor = core::Vendor::Nvidia;  // the tracker's copy is set when it changes
  bool vendor_set = false;

  // The previous sample, for increases and gap starts.
  bool have_prev = false;
  double prev_t_s = 0;
  bool prev_idle = false;
  std::array<std::optional<double>, kCounterCount> prev_throttled_s;
  std::optional<double> prev_ecc_volatile, prev_ecc_aggregate, prev_remap_uncorrectable, prev_remap_correctable;

  // Hardware events, held for kHardwareHoldS after the last one.
  double last_ecc_increase_s = kNever, last_remap_increase_s = kNever;
  double ecc_new = 0, remap_new = 0;       // increases seen while the finding is held
  std::optional<double> lost_since_s;

  GpuSample sample;  // the current one (valid during observe)

  // The job of the GPU in the current snapshot (an index into JobTable::jobs(), -1: none), and
  // what it was found from (reused while the biggest process stays the same).
  int job = -1;
  std::uint32_t job_pid = 0;
  std::string job_name;
  std::uint64_t job_generation = 0;
  SpinRun spin;
  // Set by the job-level checks of the current snapshot, read by its per-GPU checks: the GPU
  // spins in its job's collective hang / waits for a saturated sibling (imbalance).
  bool in_collective_hang = false;
  bool waits_for_sibling = false;
  // Set by comm_bound's job-level check: the GPU's dips are its job's synchronisation waits.
  bool comm_bound = false;
};

// Adds the current sample (state.sample) to the windows and trends.
void record_sample(GpuState& state);
// How idle the current sample's GPU was over its interval, 0..1: the sample buffer's idle share,
// else 1 for an idle reading and 0 for a busy one; nullopt without a utilization reading.
std::optional<double> idle_weight(const GpuSample& sample);
struct HostView;
// Adds HOST (a known host sample of the same snapshot) to the GPU's host window, when a process
// holds the GPU (host_window.cpp); drops a host window that went stale.
void record_host(GpuState& state, const HostView& host);
// Follows the spin run with the current sample (spin_run.cpp; called by record_sample).
void track_spin(GpuState& state);

}  // namespace gpuwatch::diagnose
