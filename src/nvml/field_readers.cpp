#include "nvml/field_readers.hpp"

#include <fmt/format.h>

#include "nvml/field_writer.hpp"

namespace gpuwatch::nvml {
namespace {

using namespace detail;  // NOLINT: the Writer and generic readers
using core::FieldId;
using core::FieldReading;
using core::FieldValue;
using core::Source;

double field_value_as_double(const nvmlFieldValue_t& v) {
  switch (v.valueType) {
    case NVML_VALUE_TYPE_DOUBLE: return v.value.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_INT: return v.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return static_cast<double>(v.value.ulVal);
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return static_cast<double>(v.value.ullVal);
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return static_cast<double>(v.value.sllVal);
    default: return static_cast<double>(v.value.uiVal);
  }
}

// nvmlDeviceGetFieldValues: one call for every requested field id.
void read_field_values(Writer& w, const NvmlApi& api, nvmlDevice_t dev) {
  std::vector<nvmlFieldValue_t> values(w.fields.size());
  for (std::size_t i = 0; i < w.fields.size(); ++i) values[i].fieldId = static_cast<unsigned>(arg_of(w.fields[i]));
  nvmlReturn_t rc = call(api.raw().nvmlDeviceGetFieldValues, dev, static_cast<int>(values.size()), values.data());
  if (rc != NVML_SUCCESS) return w.fail_all(rc);
  for (std::size_t i = 0; i < w.fields.size(); ++i) {
    const auto& v = values[i];
    if (v.nvmlReturn != NVML_SUCCESS) {
      w.fail(w.fields[i], v.nvmlReturn);
      continue;
    }
    double x = field_value_as_double(v);
    switch (v.fieldId) {
      case NVML_FI_DEV_POWER_AVERAGE:
      case NVML_FI_DEV_POWER_INSTANT: w.set(w.fields[i], x * kMilli); break;  // mW -> W
      case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_THERM_SLOWDOWN:
      case NVML_FI_DEV_CLOCKS_EVENT_REASON_HW_POWER_BRAKE_SLOWDOWN: w.set(w.fields[i], x * kSecondsPerNs); break;
      default: w.set(w.fields[i], static_cast<std::int64_t>(x)); break;     // temperatures: degrees C
    }
  }
}

void read_pci(Writer& w, const NvmlApi& api, nvmlDevice_t dev) {
  nvmlPciInfo_t pci{};
  nvmlReturn_t rc = api.pci_info(dev, &pci);
  w.all(rc, [&](FieldId f) -> FieldValue {
    switch (arg_of(f)) {
      case 0: return std::string(pci.busId);
      case 1: return std::uint64_t{pci.domain};
      case 2: return std::uint64_t{pci.bus};
      case 3: return std::uint64_t{pci.device};
      case 4: return std::uint64_t{pci.pciDeviceId};
      default: return std::uint64_t{pci.pciSubSystemId};
    }
  });
}

void read_memory(Writer& w, const NvmlApi& api, nvmlDevice_t dev) {
  MemoryInfo m;
  nvmlReturn_t rc = api.memory_info(dev, &m);
  if (rc != NVML_SUCCESS) return w.fail_all(rc);
  for (auto f : w.fields) {
    switch (arg_of(f)) {
      case 0: w.set(f, std::uint64_t{m.total_bytes}); break;
      case 1:
        if (m.reserved_bytes) {
          w.set(f, *m.reserved_bytes);
        } else {  // v1 fallback: reserved is not reported
          w.device.get(f) = FieldReading::absent(core::FieldStatus::FunctionMissing, error_from_nvml(NVML_ERROR_FUNCTION_NOT_FOUND));
        }
        break;
      case 2: w.set(f, std::uint64_t{m.used_bytes}); break;
      default: w.set(f, std::uint64_t{m.free_bytes}); break;
    }
  }
}

void read_event_reasons(Writer& w, const NvmlApi& api, nvmlDevice_t dev) {
  bool need_supported = false, need_current = false;
  for (auto f : w.fields) (arg_of(f) == -1 ? need_supported : need_current) = true;
  unsigned long long supported = 0, current = 0;
  nvmlReturn_t rc_supported = need_supported ? api.supported_clocks_event_reasons(dev, &supported) : NVML_SUCCESS;
  nvmlReturn_t rc_current = need_current ? api.current_clocks_event_reasons(dev, &current) : NVML_SUCCESS;
  for (auto f : w.fields) {
    int a = arg_of(f);
    nvmlReturn_t rc = a == -1 ? rc_supported : rc_current;
    if (rc != NVML_SUCCESS) {
      w.fail(f, rc);
    } else if (a == -1) {
      w.set(f, std::uint64_t{supported});
    } else if (a == -2) {
      w.set(f, std::uint64_t{current});
    } else {
      w.set(f, (current & static_cast<unsigned long long>(a)) != 0);
    }
  }
}

void read_remapped_rows(Writer& w, const NvmlApi& api, nvmlDevice_t dev) {
  unsigned corr = 0, unc = 0, pending = 0, failure = 0;
  nvmlReturn_t rc = call(api.raw().nvmlDeviceGetRemappedRows, dev, &corr, &unc, &pending, &failure);
  w.all(rc, [&](FieldId f) -> FieldValue {
    switch (arg_of(f)) {
      case 0: return std::uint64_t{corr};
      case 1: return std::uint64_t{unc};
      case 2: return pending != 0;
      default: return failure != 0;
    }
  });
}

void read_histogram(Writer& w, const NvmlApi& api, nvmlDevice_t dev) {
  nvmlRowRemapperHistogramValues_t h{};
  nvmlReturn_t rc = call(api.raw().nvmlDeviceGetRowRemapperHistogram, dev, &h);
  const unsigned values[] = {h.max, h.high, h.partial, h.low, h.none};
  w.all(rc, [&](FieldId f) { return FieldValue{std::uint64_t{values[arg_of(f)]}}; });
}

void read_pair_modes(Writer& w, nvmlReturn_t rc, unsigned current, unsigned pending) {
  w.all(rc, [&](FieldId f) { return FieldValue{(arg_of(f) == 0 ? current : pending) == 1}; });
}

}  // namespace

core::FieldStatus status_from_nvml(nvmlReturn_t code) {
  switch (code) {
    case NVML_SUCCESS: return core::FieldStatus::Ok;
    case NVML_ERROR_NOT_SUPPORTED:
    case NVML_ERROR_DEPRECATED: return core::FieldStatus::NotSupported;
    case NVML_ERROR_NO_PERMISSION: return core::FieldStatus::NoPermission;
    case NVML_ERROR_FUNCTION_NOT_FOUND: return core::FieldStatus::FunctionMissing;
    default: return core::FieldStatus::Failed;
  }
}

core::ReadError error_from_nvml(nvmlReturn_t code) {
  using R = core::ErrorReason;
  const auto reason = [code] {
    switch (code) {
      case NVML_SUCCESS: return R::None;
      case NVML_ERROR_NOT_SUPPORTED: return R::NotSupported;
      case NVML_ERROR_DEPRECATED: return R::Deprecated;
      case NVML_ERROR_NO_PERMISSION: return R::NoPermission;
      case NVML_ERROR_FUNCTION_NOT_FOUND: return R::FunctionMissing;
      case NVML_ERROR_GPU_IS_LOST: return R::GpuLost;
      case NVML_ERROR_TIMEOUT: return R::Timeout;
      case NVML_ERROR_NOT_FOUND: return R::NotFound;
      case NVML_ERROR_UNINITIALIZED: return R::Uninitialized;
      case NVML_ERROR_DRIVER_NOT_LOADED: return R::DriverNotLoaded;
      case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return R::DriverMismatch;
      case NVML_ERROR_INSUFFICIENT_SIZE: return R::InsufficientSize;
      default: return R::Other;
    }
  }();
  return core::ReadError{reason, static_cast<int>(code)};
}

nvmlReturn_t read_source(const NvmlApi& api, nvmlDevice_t dev, core::Source source,
                         std::span<const core::FieldId> fields, core::DeviceSnapshot& device) {
  Writer w{fields, device};
  const NvmlFunctions& f = api.raw();
  switch (source) {
    case Source::Name: read_string(w, f.nvmlDeviceGetName, dev); break;
    case Source::Serial: read_string(w, f.nvmlDeviceGetSerial, dev); break;
    case Source::Uuid: read_string(w, f.nvmlDeviceGetUUID, dev); break;
    case Source::VbiosVersion: read_string(w, f.nvmlDeviceGetVbiosVersion, dev); break;
    case Source::InforomImage: read_string(w, f.nvmlDeviceGetInforomImageVersion, dev); break;
    case Source::InforomVersion:
      w.each([&](FieldId id, FieldValue* out) {
        char buf[64] = {};
        nvmlReturn_t rc = call(f.nvmlDeviceGetInforomVersion, dev, arg_of(id), buf, static_cast<unsigned>(sizeof buf));
        *out = std::string(buf);
        return rc;
      });
      break;
    case Source::PciInfo: read_pci(w, api, dev); break;
    case Source::Index: read_unsigned(w, f.nvmlDeviceGetIndex, dev); break;
    case Source::MinorNumber: read_unsigned(w, f.nvmlDeviceGetMinorNumber, dev); break;
    case Source::PcieCurrGen: read_unsigned(w, f.nvmlDeviceGetCurrPcieLinkGeneration, dev); break;
    case Source::PcieMaxGen: read_unsigned(w, f.nvmlDeviceGetMaxPcieLinkGeneration, dev); break;
    case Source::PcieGpuMaxGen: read_unsigned(w, f.nvmlDeviceGetGpuMaxPcieLinkGeneration, dev); break;
    case Source::PcieCurrWidth: read_unsigned(w, f.nvmlDeviceGetCurrPcieLinkWidth, dev); break;
    case Source::PcieMaxWidth: read_unsigned(w, f.nvmlDeviceGetMaxPcieLinkWidth, dev); break;
    case Source::AccountingBufferSize: read_unsigned(w, f.nvmlDeviceGetAccountingBufferSize, dev); break;
    case Source::DisplayMode: read_enabled(w, f.nvmlDeviceGetDisplayMode, dev); break;
    case Source::DisplayActive: read_enabled(w, f.nvmlDeviceGetDisplayActive, dev); break;
    case Source::PersistenceMode: read_enabled(w, f.nvmlDeviceGetPersistenceMode, dev); break;
    case Source::AccountingMode: read_enabled(w, f.nvmlDeviceGetAccountingMode, dev); break;
    case Source::FanSpeed: {
      unsigned pct = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetFanSpeed, dev, &pct);
      w.all(rc, [&](FieldId) { return FieldValue{pct * kPercent}; });
      break;
    }
    case Source::PerformanceState: {
      int p = NVML_PSTATE_UNKNOWN;
      nvmlReturn_t rc = call(f.nvmlDeviceGetPerformanceState, dev, &p);
      if (rc == NVML_SUCCESS && (p < 0 || p == NVML_PSTATE_UNKNOWN)) {
        for (auto id : fields) device.get(id) = FieldReading::absent(core::FieldStatus::NotApplicable, {});
      } else {
        w.all(rc, [&](FieldId) { return FieldValue{static_cast<std::int64_t>(p)}; });
      }
      break;
    }
    case Source::ClocksEventReasons: read_event_reasons(w, api, dev); break;
    case Source::ViolationStatus:
      w.each([&](FieldId id, FieldValue* out) {
        nvmlViolationTime_t t{};
        nvmlReturn_t rc = call(f.nvmlDeviceGetViolationStatus, dev, arg_of(id), &t);
        *out = static_cast<double>(t.violationTime) * kSecondsPerNs;
        return rc;
      });
      break;
    case Source::MemoryInfo: read_memory(w, api, dev); break;
    case Source::ComputeMode: {
      int mode = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetComputeMode, dev, &mode);
      w.all(rc, [&](FieldId) { return FieldValue{static_cast<std::int64_t>(mode)}; });
      break;
    }
    case Source::CudaComputeCapability: {
      int major = 0, minor = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetCudaComputeCapability, dev, &major, &minor);
      w.all(rc, [&](FieldId) { return FieldValue{fmt::format("{}.{}", major, minor)}; });
      break;
    }
    case Source::UtilizationRates: {
      nvmlUtilization_t u{};
      nvmlReturn_t rc = call(f.nvmlDeviceGetUtilizationRates, dev, &u);
      w.all(rc, [&](FieldId id) { return FieldValue{(arg_of(id) == 0 ? u.gpu : u.memory) * kPercent}; });
      break;
    }
    case Source::EncoderUtilization: read_engine_utilization(w, f.nvmlDeviceGetEncoderUtilization, dev); break;
    case Source::DecoderUtilization: read_engine_utilization(w, f.nvmlDeviceGetDecoderUtilization, dev); break;
    case Source::JpgUtilization: read_engine_utilization(w, f.nvmlDeviceGetJpgUtilization, dev); break;
    case Source::OfaUtilization: read_engine_utilization(w, f.nvmlDeviceGetOfaUtilization, dev); break;
    case Source::EncoderStats: {
      unsigned sessions = 0, fps = 0, latency = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetEncoderStats, dev, &sessions, &fps, &latency);
      const unsigned values[] = {sessions, fps, latency};
      w.all(rc, [&](FieldId id) { return FieldValue{std::uint64_t{values[arg_of(id)]}}; });
      break;
    }
    case Source::EccMode: {
      int current = 0, pending = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetEccMode, dev, &current, &pending);
      read_pair_modes(w, rc, static_cast<unsigned>(current), static_cast<unsigned>(pending));
      break;
    }
    case Source::TotalEccErrors:
      w.each([&](FieldId id, FieldValue* out) {
        unsigned long long n = 0;
        int a = arg_of(id);
        nvmlReturn_t rc = call(f.nvmlDeviceGetTotalEccErrors, dev, a / 10, a % 10, &n);
        *out = std::uint64_t{n};
        return rc;
      });
      break;
    case Source::MemoryErrorCounter:
      w.each([&](FieldId id, FieldValue* out) {
        unsigned long long n = 0;
        int a = arg_of(id);
        nvmlReturn_t rc = call(f.nvmlDeviceGetMemoryErrorCounter, dev, a / 100, (a / 10) % 10, a % 10, &n);
        *out = std::uint64_t{n};
        return rc;
      });
      break;
    case Source::RetiredPages:
      w.each([&](FieldId id, FieldValue* out) {
        unsigned count = 0;
        nvmlReturn_t rc = call(f.nvmlDeviceGetRetiredPages, dev, arg_of(id), &count,
                               static_cast<unsigned long long*>(nullptr));
        if (rc == NVML_ERROR_INSUFFICIENT_SIZE) rc = NVML_SUCCESS;  // the count is what we asked for
        *out = std::uint64_t{count};
        return rc;
      });
      break;
    case Source::RetiredPagesPending: read_enabled(w, f.nvmlDeviceGetRetiredPagesPendingStatus, dev); break;
    case Source::RemappedRows: read_remapped_rows(w, api, dev); break;
    case Source::RowRemapperHistogram: read_histogram(w, api, dev); break;
    case Source::Temperature: {
      unsigned c = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetTemperature, dev, static_cast<int>(NVML_TEMPERATURE_GPU), &c);
      w.all(rc, [&](FieldId) { return FieldValue{static_cast<std::int64_t>(c)}; });
      break;
    }
    case Source::FieldValues: read_field_values(w, api, dev); break;
    case Source::PowerUsage: read_milliwatts(w, f.nvmlDeviceGetPowerUsage, dev); break;
    case Source::PowerLimit: read_milliwatts(w, f.nvmlDeviceGetPowerManagementLimit, dev); break;
    case Source::EnforcedPowerLimit: read_milliwatts(w, f.nvmlDeviceGetEnforcedPowerLimit, dev); break;
    case Source::PowerDefaultLimit: read_milliwatts(w, f.nvmlDeviceGetPowerManagementDefaultLimit, dev); break;
    case Source::PowerLimitConstraints: {
      unsigned min_mw = 0, max_mw = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetPowerManagementLimitConstraints, dev, &min_mw, &max_mw);
      w.all(rc, [&](FieldId id) { return FieldValue{(arg_of(id) == 0 ? min_mw : max_mw) * kMilli}; });
      break;
    }
    case Source::ClockInfo: read_clock(w, f.nvmlDeviceGetClockInfo, dev); break;
    case Source::MaxClockInfo: read_clock(w, f.nvmlDeviceGetMaxClockInfo, dev); break;
    case Source::ApplicationsClock: read_clock(w, f.nvmlDeviceGetApplicationsClock, dev); break;
    case Source::DefaultApplicationsClock: read_clock(w, f.nvmlDeviceGetDefaultApplicationsClock, dev); break;
    case Source::MigMode: {
      unsigned current = 0, pending = 0;
      nvmlReturn_t rc = call(f.nvmlDeviceGetMigMode, dev, &current, &pending);
      read_pair_modes(w, rc, current, pending);
      break;
    }
    case Source::TemperatureThreshold:
    case Source::TotalEnergy:
    case Source::PcieThroughput:
    case Source::PcieReplayCounter:
    case Source::Brand:
    case Source::Architecture:
    case Source::NumGpuCores:
    case Source::BoardPartNumber:
    case Source::Bar1Memory:
    case Source::NumFans:
    case Source::PowerManagementMode:
    case Source::GpuOperationMode:
    case Source::DriverModel:
    case Source::GpuFabricInfo:
      detail::read_extension_source(w, api, dev, source);
      break;
    case Source::Gpm:  // a mean over two samples: a one-shot read has none (values: nvml::GpmReader)
    case Source::SampleBuffer:  // a summary of the interval since the previous reading (nvml::SampleBufferReader)
      for (auto id : fields) device.get(id) = FieldReading::absent(core::FieldStatus::NotRead, {});
      break;
    case Source::NvlinkThroughput:  // a rate since the previous read: NvmlBackend keeps the counters (nvml::NvlinkRates)
      for (auto id : fields) device.get(id) = FieldReading::absent(core::FieldStatus::NotApplicable, {});
      break;
    case Source::None:
    case Source::System:
      for (auto id : fields) device.get(id) = FieldReading::absent(core::FieldStatus::NotSupported, {});
      break;
  }
  return w.worst;
}

}  // namespace gpuwatch::nvml
