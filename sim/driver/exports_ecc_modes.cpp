// ECC, retired pages, remapped rows, modes, MIG mode and MIG handles.
#include <string>

#include "sim/driver/driver_state.hpp"

using namespace gpuwatch::sim;
using namespace gpuwatch::sim::driver;

namespace {

const char* location_name(int location) {
  switch (location) {
    case 0: return "l1_cache";
    case 1: return "l2_cache";
    case 2: return "device_memory";
    case 3: return "register_file";
    case 4: return "texture_memory";
    case 5: return "texture_shm";
    case 6: return "cbu";
    case 7: return "sram";
    default: return nullptr;
  }
}

std::optional<Key> ecc_key(int error_type, int counter_type, const char* what) {
  if ((error_type != 0 && error_type != 1) || (counter_type != 0 && counter_type != 1) || !what) return std::nullopt;
  std::string name = std::string("ecc.errors.") + (error_type == 0 ? "corrected." : "uncorrected.") +
                     (counter_type == 0 ? "volatile." : "aggregate.") + what;
  return find_key(name);
}

nvmlReturn_t flag_key(Fn fn, nvmlDevice_t device, Key key, int* out) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    return v.flag(key, *out);
  });
}

}  // namespace

GW_EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, int* current, int* pending) noexcept {
  return with_device(Fn::nvmlDeviceGetEccMode, device, [&](const View& v) -> nvmlReturn_t {
    if (!current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
    if (nvmlReturn_t r = v.flag(Key::EccModeCurrent, *current); r != NVML_SUCCESS) return r;
    return v.flag(Key::EccModePending, *pending);
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int error_type, int counter_type,
                                                   unsigned long long* count) noexcept {
  return with_device(Fn::nvmlDeviceGetTotalEccErrors, device, [&](const View& v) -> nvmlReturn_t {
    auto key = ecc_key(error_type, counter_type, "total");
    if (!count || !key) return NVML_ERROR_INVALID_ARGUMENT;
    return v.ull(*key, 1, *count);
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetMemoryErrorCounter(nvmlDevice_t device, int error_type, int counter_type,
                                                       int location, unsigned long long* count) noexcept {
  return with_device(Fn::nvmlDeviceGetMemoryErrorCounter, device, [&](const View& v) -> nvmlReturn_t {
    auto key = ecc_key(error_type, counter_type, location_name(location));
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    if (!key) return location_name(location) ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
    return v.ull(*key, 1, *count);
  });
}

namespace {
nvmlReturn_t retired_pages(Fn fn, nvmlDevice_t device, int cause, unsigned* count, unsigned long long* addresses,
                           unsigned long long* timestamps) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    Key key{};
    if (cause == NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS) key = Key::RetiredPagesSingleBitEccCount;
    else if (cause == NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR) key = Key::RetiredPagesDoubleBitCount;
    else return NVML_ERROR_INVALID_ARGUMENT;
    unsigned n = 0;
    if (nvmlReturn_t r = v.uint(key, 1, n); r != NVML_SUCCESS) return r;
    if (*count < n) {
      *count = n;
      return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (n > 0 && !addresses) return NVML_ERROR_INVALID_ARGUMENT;
    for (unsigned i = 0; i < n; ++i) {
      addresses[i] = 0x1000ull * (0x2A000ull + i * 37 + static_cast<unsigned>(cause) * 1000 + v.gpu() * 7);
      if (timestamps) timestamps[i] = DriverState::get().now_us() / 1000000 - 3600ull * (n - i);
    }
    *count = n;
    return NVML_SUCCESS;
  });
}
}  // namespace

GW_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, int cause, unsigned int* count,
                                                 unsigned long long* addresses) noexcept {
  return retired_pages(Fn::nvmlDeviceGetRetiredPages, device, cause, count, addresses, nullptr);
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, int* pending) noexcept {
  return flag_key(Fn::nvmlDeviceGetRetiredPagesPendingStatus, device, Key::RetiredPagesPending, pending);
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int* corr, unsigned int* unc,
                                                 unsigned int* pending, unsigned int* failure) noexcept {
  return with_device(Fn::nvmlDeviceGetRemappedRows, device, [&](const View& v) -> nvmlReturn_t {
    if (!corr || !unc || !pending || !failure) return NVML_ERROR_INVALID_ARGUMENT;
    int p = 0, f = 0;
    if (nvmlReturn_t r = v.uint(Key::RemappedRowsCorrectable, 1, *corr); r != NVML_SUCCESS) return r;
    if (nvmlReturn_t r = v.uint(Key::RemappedRowsUncorrectable, 1, *unc); r != NVML_SUCCESS) return r;
    if (nvmlReturn_t r = v.flag(Key::RemappedRowsPending, p); r != NVML_SUCCESS) return r;
    if (nvmlReturn_t r = v.flag(Key::RemappedRowsFailure, f); r != NVML_SUCCESS) return r;
    *pending = static_cast<unsigned>(p);
    *failure = static_cast<unsigned>(f);
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t device, nvmlRowRemapperHistogramValues_t* values) noexcept {
  return with_device(Fn::nvmlDeviceGetRowRemapperHistogram, device, [&](const View& v) -> nvmlReturn_t {
    if (!values) return NVML_ERROR_INVALID_ARGUMENT;
    nvmlRowRemapperHistogramValues_t h{};
    if (nvmlReturn_t r = v.uint(Key::RemappedRowsHistogramMax, 1, h.max); r != NVML_SUCCESS) return r;
    if (nvmlReturn_t r = v.uint(Key::RemappedRowsHistogramHigh, 1, h.high); r != NVML_SUCCESS) return r;
    if (nvmlReturn_t r = v.uint(Key::RemappedRowsHistogramPartial, 1, h.partial); r != NVML_SUCCESS) return r;
    if (nvmlReturn_t r = v.uint(Key::RemappedRowsHistogramLow, 1, h.low); r != NVML_SUCCESS) return r;
    if (nvmlReturn_t r = v.uint(Key::RemappedRowsHistogramNone, 1, h.none); r != NVML_SUCCESS) return r;
    *values = h;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, int* mode) noexcept {
  return with_device(Fn::nvmlDeviceGetComputeMode, device, [&](const View& v) -> nvmlReturn_t {
    if (!mode) return NVML_ERROR_INVALID_ARGUMENT;
    const std::string* s = nullptr;
    if (nvmlReturn_t r = v.text(Key::ComputeMode, s); r != NVML_SUCCESS) return r;
    if (*s == "Default") *mode = NVML_COMPUTEMODE_DEFAULT;
    else if (*s == "Exclusive_Thread") *mode = NVML_COMPUTEMODE_EXCLUSIVE_THREAD;
    else if (*s == "Prohibited") *mode = NVML_COMPUTEMODE_PROHIBITED;
    else if (*s == "Exclusive_Process") *mode = NVML_COMPUTEMODE_EXCLUSIVE_PROCESS;
    else return NVML_ERROR_NOT_SUPPORTED;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, int* mode) noexcept {
  return flag_key(Fn::nvmlDeviceGetPersistenceMode, device, Key::PersistenceMode, mode);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t device, int* display) noexcept {
  return flag_key(Fn::nvmlDeviceGetDisplayMode, device, Key::DisplayMode, display);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t device, int* active) noexcept {
  return flag_key(Fn::nvmlDeviceGetDisplayActive, device, Key::DisplayActive, active);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t device, int* mode) noexcept {
  return flag_key(Fn::nvmlDeviceGetAccountingMode, device, Key::AccountingMode, mode);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetAccountingBufferSize(nvmlDevice_t device, unsigned int* size) noexcept {
  return with_device(Fn::nvmlDeviceGetAccountingBufferSize, device, [&](const View& v) -> nvmlReturn_t {
    if (!size) return NVML_ERROR_INVALID_ARGUMENT;
    return v.uint(Key::AccountingBufferSize, 1, *size);
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int* current, unsigned int* pending) noexcept {
  return with_device(Fn::nvmlDeviceGetMigMode, device, [&](const View& v) -> nvmlReturn_t {
    if (!current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
    int c = 0, p = 0;
    if (nvmlReturn_t r = v.flag(Key::MigModeCurrent, c); r != NVML_SUCCESS) return r;
    if (nvmlReturn_t r = v.flag(Key::MigModePending, p); r != NVML_SUCCESS) return r;
    *current = static_cast<unsigned>(c);
    *pending = static_cast<unsigned>(p);
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int* is_mig) noexcept {
  return with_device(Fn::nvmlDeviceIsMigDeviceHandle, device, [&](const View& v) -> nvmlReturn_t {
    if (!is_mig) return NVML_ERROR_INVALID_ARGUMENT;
    *is_mig = v.mig() >= 0 ? 1 : 0;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int* count) noexcept {
  return with_device(Fn::nvmlDeviceGetMaxMigDeviceCount, device, [&](const View& v) -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    int mode = 0;
    if (nvmlReturn_t r = v.flag(Key::MigModeCurrent, mode); r != NVML_SUCCESS) return r;
    *count = mode ? 7u : 0u;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t* mig) noexcept {
  return with_device(Fn::nvmlDeviceGetMigDeviceHandleByIndex, device, [&](const View& v) -> nvmlReturn_t {
    if (!mig || v.mig() >= 0) return NVML_ERROR_INVALID_ARGUMENT;
    int mode = 0;
    if (nvmlReturn_t r = v.flag(Key::MigModeCurrent, mode); r != NVML_SUCCESS) return r;
    if (!mode) return NVML_ERROR_INVALID_ARGUMENT;
    if (index >= v.spec().mig.size()) return index < 7 ? NVML_ERROR_NOT_FOUND : NVML_ERROR_INVALID_ARGUMENT;
    *mig = DriverState::get().handle(v.gpu(), static_cast<int>(index));
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t mig, nvmlDevice_t* device) noexcept {
  return with_device(Fn::nvmlDeviceGetDeviceHandleFromMigDeviceHandle, mig, [&](const View& v) -> nvmlReturn_t {
    if (!device || v.mig() < 0) return NVML_ERROR_INVALID_ARGUMENT;
    *device = DriverState::get().handle(v.gpu());
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int* id) noexcept {
  return with_device(Fn::nvmlDeviceGetGpuInstanceId, device, [&](const View& v) -> nvmlReturn_t {
    if (!id) return NVML_ERROR_INVALID_ARGUMENT;
    if (v.mig() < 0) return NVML_ERROR_NOT_SUPPORTED;
    *id = v.spec().mig[static_cast<std::size_t>(v.mig())].gpu_instance_id;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int* id) noexcept {
  return with_device(Fn::nvmlDeviceGetComputeInstanceId, device, [&](const View& v) -> nvmlReturn_t {
    if (!id) return NVML_ERROR_INVALID_ARGUMENT;
    if (v.mig() < 0) return NVML_ERROR_NOT_SUPPORTED;
    *id = v.spec().mig[static_cast<std::size_t>(v.mig())].compute_instance_id;
    return NVML_SUCCESS;
  });
}

#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t device, int cause, unsigned int* count,
                                                    unsigned long long* addresses, unsigned long long* timestamps) noexcept {
  return retired_pages(Fn::nvmlDeviceGetRetiredPages_v2, device, cause, count, addresses, timestamps);
}
#endif

GW_EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementMode(nvmlDevice_t device, int* mode) noexcept {
  return flag_key(Fn::nvmlDeviceGetPowerManagementMode, device, Key::PowerManagement, mode);
}

namespace {
nvmlReturn_t text_pair(Fn fn, nvmlDevice_t device, Key current_key, Key pending_key,
                       std::initializer_list<std::pair<const char*, int>> names, int* current, int* pending) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    if (!current || !pending) return NVML_ERROR_INVALID_ARGUMENT;
    int out[2] = {0, 0};
    Key keys[2] = {current_key, pending_key};
    for (int i = 0; i < 2; ++i) {
      const std::string* s = nullptr;
      if (nvmlReturn_t r = v.text(keys[i], s); r != NVML_SUCCESS) return r;
      bool found = false;
      for (auto [name, code] : names)
        if (*s == name) { out[i] = code; found = true; }
      if (!found) return NVML_ERROR_NOT_SUPPORTED;
    }
    *current = out[0];
    *pending = out[1];
    return NVML_SUCCESS;
  });
}
}  // namespace

GW_EXPORT nvmlReturn_t nvmlDeviceGetGpuOperationMode(nvmlDevice_t device, int* current, int* pending) noexcept {
  return text_pair(Fn::nvmlDeviceGetGpuOperationMode, device, Key::GomCurrent, Key::GomPending,
                   {{"All On", 0}, {"Compute", 1}, {"Low Double Precision", 2}}, current, pending);
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, int* current, int* pending) noexcept {
  return text_pair(Fn::nvmlDeviceGetDriverModel, device, Key::DriverModelCurrent, Key::DriverModelPending,
                   {{"WDDM", 0}, {"TCC", 1}}, current, pending);
}
