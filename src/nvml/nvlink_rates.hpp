#pragma once
// NVLink throughput (issue 25): NVML's NVLink data counters as rates between two reads.
// nvmlDeviceGetFieldValues with NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX / _RX (138 / 139) and
// scopeId UINT_MAX answers the data (payload, not the protocol's headers) sent / received over
// every link of the GPU, in KiB, a counter since the driver loaded (shared/reference/nvml.md
// §2.13); each value carries the driver's time of reading (µs since 1970). The rate of the
// Source::NvlinkThroughput fields is Δcounter / Δtime between this read and the previous read
// of the same GPU, in bytes per second:
//   - the first read of a GPU has none: NotApplicable ([N/A], not cached as unsupported), so a
//     one-shot `status` or `query` shows [N/A] and a loop shows the rate from its second sample;
//   - a counter that went back (a driver reload, a reset) starts over: NotApplicable again;
//   - reads closer than kNvlinkMinInterval (two loops on one backend, the simulator's 100 ms
//     quantum) keep the previous rate and the previous starting point;
//   - a board without NVLink answers NOT_SUPPORTED: NotSupported (cached by the sampler), never 0.
// Thread-safe: the sampler reads GPUs from several threads; one state per GPU handle.
#include <array>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <span>

#include "core/field_table.hpp"
#include "core/snapshot.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuwatch::nvml {

// Reads closer than this keep the previous rate (a rate over a few ms is noise).
inline constexpr std::chrono::microseconds kNvlinkMinInterval{50'000};

// One reading of an NVLink data counter: KiB, and the driver's time of reading (µs since 1970).
struct NvlinkCounter {
  unsigned long long kib = 0;
  long long at_us = 0;
};

// Pure: the bytes per second from BEFORE to AFTER; nullopt when the counter went back or no time
// (or negative time) passed.
std::optional<double> nvlink_rate(const NvlinkCounter& before, const NvlinkCounter& after);

class NvlinkRates {
 public:
  // Writes the Source::NvlinkThroughput FIELDS of DEVICE for the GPU DEV (see above). NOW_US is
  // used where the driver leaves a value's timestamp 0. Returns the worst NVML code (NOT_SUPPORTED
  // on a board without NVLink; GPU_IS_LOST forgets the GPU's counters).
  nvmlReturn_t read(const NvmlApi& api, nvmlDevice_t dev, std::span<const core::FieldId> fields,
                    core::DeviceSnapshot& device, long long now_us);

 private:
  struct Direction {
    std::optional<NvlinkCounter> start;  // the previous read that began the current interval
    std::optional<double> rate;          // the latest rate (bytes per second)
  };
  std::mutex mutex_;
  std::map<nvmlDevice_t, std::array<Direction, 2>> gpus_;  // [0] transmitted, [1] received
};

}  // namespace gpuwatch::nvml
