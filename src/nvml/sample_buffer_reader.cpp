#include "nvml/sample_buffer_reader.hpp"

#include <algorithm>

#include "core/field_table.hpp"
#include "nvml/field_readers.hpp"

namespace gpuwatch::nvml {
namespace {

using core::FieldId;
using core::FieldReading;
using core::FieldStatus;

// Samples asked for at once: more than a driver's buffer holds in the usual 1-10 s interval (6-60
// samples at 1/6 s), so one call usually does; a full answer is asked again with the count query.
constexpr unsigned kSampleBatch = 128;
// Room for samples the driver adds between the count query and the read.
constexpr unsigned kSampleSlack = 8;

// The sample's utilization in percent, whatever value type the driver chose; nullopt: garbage.
std::optional<unsigned> percent_of(const nvmlSample_t& s, int value_type) {
  double v = 0;
  switch (value_type) {
    case NVML_VALUE_TYPE_DOUBLE: v = s.sampleValue.dVal; break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: v = static_cast<double>(s.sampleValue.ulVal); break;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: v = static_cast<double>(s.sampleValue.ullVal); break;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: v = static_cast<double>(s.sampleValue.sllVal); break;
    default: v = s.sampleValue.uiVal; break;
  }
  if (!(v >= 0 && v <= 100)) return std::nullopt;  // garbage entries (nvtop#110 saw util > 100 %)
  return static_cast<unsigned>(v + 0.5);
}

}  // namespace

IdleSummary summarize_idle(std::span<const unsigned> utilization_percent, bool was_idle) {
  IdleSummary s;
  bool idle_before = was_idle;
  for (unsigned u : utilization_percent) {
    const bool idle = u < kIdleSamplePercent;
    ++s.samples;
    if (idle) ++s.idle;
    if (idle && !idle_before) ++s.gaps;
    idle_before = idle;
  }
  s.ends_idle = idle_before;
  return s;
}

void SampleBufferReader::reset() {
  last_seen_us_.reset();
  was_idle_ = false;
}

void SampleBufferReader::write_absent(core::DeviceSnapshot& device, FieldStatus status, int code) const {
  device.get(FieldId::UtilizationGpuIdleShare) = FieldReading::absent(status, error_from_nvml(static_cast<nvmlReturn_t>(code)));
  device.get(FieldId::UtilizationGpuIdleGaps) = FieldReading::absent(status, error_from_nvml(static_cast<nvmlReturn_t>(code)));
}

nvmlReturn_t SampleBufferReader::read(nvmlDevice_t dev, core::DeviceSnapshot& device,
                                      std::chrono::system_clock::time_point now) {
  if (unsupported_) {
    write_absent(device, status_from_nvml(*unsupported_), *unsupported_);
    return NVML_SUCCESS;
  }
  const NvmlFunctions& f = api_.raw();
  if (!last_seen_us_) {  // the first call: the interval starts now
    if (f.nvmlDeviceGetSamples == nullptr) {
      unsupported_ = NVML_ERROR_FUNCTION_NOT_FOUND;
      write_absent(device, FieldStatus::FunctionMissing, NVML_ERROR_FUNCTION_NOT_FOUND);
      return NVML_SUCCESS;
    }
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
    last_seen_us_ = us > 0 ? static_cast<unsigned long long>(us) : 0ull;
    was_idle_ = false;
    write_absent(device, FieldStatus::NotRead, 0);
    return NVML_SUCCESS;
  }
  const unsigned long long since = last_seen_us_.value_or(0);
  int value_type = NVML_VALUE_TYPE_UNSIGNED_INT;
  if (buffer_.size() < kSampleBatch) buffer_.resize(kSampleBatch);
  unsigned count = static_cast<unsigned>(buffer_.size());
  nvmlReturn_t rc = GW_NVML_CALL(f, nvmlDeviceGetSamples, dev, NVML_GPU_UTILIZATION_SAMPLES, since, &value_type, &count,
                                 buffer_.data());
  const bool full = rc == NVML_ERROR_INSUFFICIENT_SIZE || (rc == NVML_SUCCESS && count >= buffer_.size());
  if (full) {  // more than a batch since the last call: ask how many, then read them all
    count = 0;
    rc = GW_NVML_CALL(f, nvmlDeviceGetSamples, dev, NVML_GPU_UTILIZATION_SAMPLES, since, &value_type, &count, nullptr);
  }
  if (full && rc == NVML_SUCCESS && count > 0) {
    buffer_.resize(count + kSampleSlack);
    count = static_cast<unsigned>(buffer_.size());
    rc = GW_NVML_CALL(f, nvmlDeviceGetSamples, dev, NVML_GPU_UTILIZATION_SAMPLES, since, &value_type, &count,
                      buffer_.data());
    if (rc == NVML_ERROR_NOT_FOUND) count = 0;
  }
  if (rc == NVML_ERROR_FUNCTION_NOT_FOUND || rc == NVML_ERROR_NOT_SUPPORTED) {
    unsupported_ = rc;
    write_absent(device, status_from_nvml(rc), rc);
    return NVML_SUCCESS;
  }
  if (rc != NVML_SUCCESS && rc != NVML_ERROR_NOT_FOUND) {
    write_absent(device, status_from_nvml(rc), rc);
    if (rc == NVML_ERROR_GPU_IS_LOST) reset();
    return rc;
  }
  // The samples newer than the last seen, oldest first (a driver may answer in any order).
  const std::size_t n = rc == NVML_SUCCESS ? std::min<std::size_t>(count, buffer_.size()) : 0;
  std::sort(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(n),
            [](const nvmlSample_t& a, const nvmlSample_t& b) { return a.timeStamp < b.timeStamp; });
  values_.clear();
  unsigned long long newest = since;
  for (std::size_t i = 0; i < n; ++i) {
    if (buffer_[i].timeStamp <= since) continue;
    newest = std::max(newest, buffer_[i].timeStamp);
    if (auto u = percent_of(buffer_[i], value_type)) values_.push_back(*u);
  }
  last_seen_us_ = newest;
  const IdleSummary summary = summarize_idle(values_, was_idle_);
  if (summary.samples == 0) {  // no sample in the interval: absent, never 0
    write_absent(device, FieldStatus::NotRead, NVML_ERROR_NOT_FOUND);
    return NVML_SUCCESS;
  }
  was_idle_ = summary.ends_idle;
  device.get(FieldId::UtilizationGpuIdleShare) =
      FieldReading::of(static_cast<double>(summary.idle) / static_cast<double>(summary.samples));
  device.get(FieldId::UtilizationGpuIdleGaps) = FieldReading::of(static_cast<std::uint64_t>(summary.gaps));
  return NVML_SUCCESS;
}

}  // namespace gpuwatch::nvml
