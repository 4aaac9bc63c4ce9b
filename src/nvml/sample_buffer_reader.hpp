#pragma once
// The driver's utilization sample buffer for sampling loops (issue 24). NVML's utilization.gpu
// is the busy share of the driver's last sample period (1/6 s to 1 s by product), so a loop
// polling every 1-10 s sees one period in six to sixty: sub-second idle gaps fall between its
// readings. nvmlDeviceGetSamples(NVML_GPU_UTILIZATION_SAMPLES) keeps every period's sample; the
// reader asks for those newer than the newest it has seen and summarises them per interval:
//   - utilization.gpu.idle_share: the share of the samples below kIdleSamplePercent;
//   - utilization.gpu.idle_gaps: the runs of such samples that began in the interval (a run
//     that goes on from the previous interval is not counted again).
// The first call asks NVML nothing: the interval starts at its NOW (the driver stamps its samples
// with the host's clock, µs since 1970: nvml.md §6.7), so no loop ever reads the whole buffer.
// Absent is never zero: the first call has no interval (NotRead, as GPM's first window); a
// driver without the symbol (FunctionMissing) or a GPU without the buffer (NotSupported) is
// asked once; NOT_FOUND (no sample newer: an idle buffer runs dry on real drivers) leaves the
// fields NotRead with that code. Not thread-safe: one reader per sampling thread and GPU.
#include <chrono>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "core/snapshot.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuwatch::nvml {

// A sample below this utilization (percent) is idle: no kernel ran, to within the driver's rounding.
inline constexpr unsigned kIdleSamplePercent = 5;

struct IdleSummary {
  std::size_t samples = 0, idle = 0, gaps = 0;
  bool ends_idle = false;  // the last sample was idle (a gap may go on into the next interval)
};

// Pure: the summary of UTILIZATION (percent, oldest first) after a previous interval that ended
// idle when WAS_IDLE.
IdleSummary summarize_idle(std::span<const unsigned> utilization_percent, bool was_idle);

class SampleBufferReader {
 public:
  explicit SampleBufferReader(const NvmlApi& api) : api_(api) {}

  // Writes the Source::SampleBuffer fields of DEVICE for the GPU DEV: the interval since the
  // previous call (the first: none, it starts at NOW, the time of this sample). Returns the code
  // of the sample call (GPU_IS_LOST: the GPU is gone).
  nvmlReturn_t read(nvmlDevice_t dev, core::DeviceSnapshot& device, std::chrono::system_clock::time_point now);
  // Forgets the interval (the GPU was lost or reset): the next call starts over.
  void reset();

 private:
  void write_absent(core::DeviceSnapshot& device, core::FieldStatus status, int code) const;

  const NvmlApi& api_;
  std::optional<unsigned long long> last_seen_us_;  // the newest sample read; nullopt: no interval yet
  bool was_idle_ = false;
  std::optional<nvmlReturn_t> unsupported_;  // FUNCTION_NOT_FOUND or NOT_SUPPORTED, remembered
  std::vector<nvmlSample_t> buffer_;
  std::vector<unsigned> values_;
};

}  // namespace gpuwatch::nvml
