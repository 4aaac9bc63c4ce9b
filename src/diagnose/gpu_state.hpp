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

struct GpuState {
  Window short_w{thresholds::kShortWindowS};
  Window long_w{thresholds::kLongWindowS};
  Window recent_w{thresholds::kRecentWindowS};
  Trend device_memory{thresholds::kLongWindowS};
  std::map<std::uint32_t, ProcessTrack> processes;
  std::map<std::uint64_t, XidRecord> xids;
  std::string uuid;

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
};

// Adds the current sample (state.sample) to the windows and trends.
void record_sample(GpuState& state);

}  // namespace gpuwatch::diagnose
