#include "nvml/nvlink_rates.hpp"

#include <climits>
#include <vector>

#include "nvml/field_readers.hpp"
#include "nvml/field_writer.hpp"

namespace gpuwatch::nvml {
namespace {

constexpr double kBytesPerKib = 1024.0;
constexpr unsigned kNvlinkFieldIds[2] = {NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX};

// The counter in a field value, whatever integer type the driver chose.
unsigned long long nvlink_counter_kib(const nvmlFieldValue_t& v) {
  switch (v.valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_INT: return v.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return v.value.ulVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return v.value.sllVal < 0 ? 0ull : static_cast<unsigned long long>(v.value.sllVal);
    case NVML_VALUE_TYPE_DOUBLE: return v.value.dVal < 0 ? 0ull : static_cast<unsigned long long>(v.value.dVal);
    default: return v.value.ullVal;
  }
}

}  // namespace

std::optional<double> nvlink_rate(const NvlinkCounter& before, const NvlinkCounter& after) {
  if (after.kib < before.kib || after.at_us <= before.at_us) return std::nullopt;
  const double seconds = static_cast<double>(after.at_us - before.at_us) / 1e6;
  return static_cast<double>(after.kib - before.kib) * kBytesPerKib / seconds;
}

nvmlReturn_t NvlinkRates::read(const NvmlApi& api, nvmlDevice_t dev, std::span<const core::FieldId> fields,
                               core::DeviceSnapshot& device, long long now_us) {
  detail::Writer w{fields, device};
  std::array<nvmlFieldValue_t, 2> values{};
  for (int a = 0; a < 2; ++a) {
    values[static_cast<std::size_t>(a)].fieldId = kNvlinkFieldIds[a];
    values[static_cast<std::size_t>(a)].scopeId = UINT_MAX;  // the sum over every link
  }
  const nvmlReturn_t rc = detail::call(api.raw().nvmlDeviceGetFieldValues, dev, 2, values.data());
  std::lock_guard lock(mutex_);
  if (rc != NVML_SUCCESS) {
    w.fail_all(rc);
    if (rc == NVML_ERROR_GPU_IS_LOST) gpus_.erase(dev);
    return w.worst;
  }
  auto& state = gpus_[dev];
  for (auto f : fields) {
    const int a = detail::arg_of(f) == 0 ? 0 : 1;
    const nvmlFieldValue_t& v = values[static_cast<std::size_t>(a)];
    Direction& d = state[static_cast<std::size_t>(a)];
    if (v.nvmlReturn != NVML_SUCCESS) {
      w.fail(f, v.nvmlReturn);
      d = Direction{};
      continue;
    }
    const NvlinkCounter now{nvlink_counter_kib(v), v.timestamp > 0 ? v.timestamp : now_us};
    const bool too_soon = d.start && now.kib >= d.start->kib && now.at_us >= d.start->at_us &&
                          now.at_us - d.start->at_us < kNvlinkMinInterval.count();
    if (!too_soon) {
      d.rate = d.start ? nvlink_rate(*d.start, now) : std::nullopt;  // none at the first read, or after a counter went back
      d.start = now;
    }
    if (d.rate) {
      w.set(f, *d.rate);
    } else {
      device.get(f) = core::FieldReading::absent(core::FieldStatus::NotApplicable);
    }
  }
  return w.worst;
}

}  // namespace gpuwatch::nvml
