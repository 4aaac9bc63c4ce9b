// The core (ze*) functions a monitor needs: init, the one driver, its devices and their identity.
#include <cctype>
#include <cmath>
#include <cstring>

#include "sim/engine/noise.hpp"
#include "sim/ze_driver/ze_functions.hpp"

namespace gpuwatch::sim::ze {
namespace {

// 1.3.26918, the form Intel's compute runtime reports (major << 24 | minor << 16 | build).
constexpr uint32_t kSimDriverVersion = (1u << 24) | (3u << 16) | 26918u;

// The 16 bytes of a UUID written as hex digits ("xxxxxxxx-xxxx-..."; a "GPU-" or other prefix
// before the first group is skipped). Missing digits: derived from SEED.
void uuid_bytes(const std::string* text, std::uint64_t seed, uint8_t out[16]) {
  std::string hex;
  if (text) {
    std::string_view s = *text;
    if (auto dash = s.find('-'); dash != std::string_view::npos && dash != 8) s.remove_prefix(dash + 1);
    for (char c : s)
      if (std::isxdigit(static_cast<unsigned char>(c))) hex.push_back(c);
  }
  for (unsigned i = 0; i < 16; ++i) {
    if (hex.size() >= 2 * i + 2) out[i] = static_cast<uint8_t>(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
    else out[i] = static_cast<uint8_t>(hash_mix(seed, i, 0x2e0u) & 0xFF);
  }
}

}  // namespace

ze_result_t init(ze_init_flags_t flags) {
  try {
    return ZeState::get().init(flags);
  } catch (...) {
    return ZE_RESULT_ERROR_UNINITIALIZED;
  }
}

ze_result_t driver_get(uint32_t* count, ze_driver_handle_t* drivers) {
  auto& st = ZeState::get();
  if (!st.initialized()) return ZE_RESULT_ERROR_UNINITIALIZED;
  return enumerate(std::vector<ze_driver_handle_t>{st.driver()}, count, drivers);
}

ze_result_t driver_get_api_version(ze_driver_handle_t driver, ze_api_version_t* version) {
  if (driver != ZeState::get().driver()) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!version) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  *version = ZE_API_VERSION_CURRENT;
  return ZE_RESULT_SUCCESS;
}

ze_result_t driver_get_properties(ze_driver_handle_t driver, ze_driver_properties_t* properties) {
  if (driver != ZeState::get().driver()) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  if (!properties) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  static const char kDriverUuid[] = "gpuwatch-sim-ze";  // 15 characters and the NUL: 16 bytes
  static_assert(sizeof(kDriverUuid) == ZE_MAX_DRIVER_UUID_SIZE);
  std::memcpy(properties->uuid.id, kDriverUuid, ZE_MAX_DRIVER_UUID_SIZE);
  properties->driverVersion = kSimDriverVersion;
  return ZE_RESULT_SUCCESS;
}

ze_result_t device_get(ze_driver_handle_t driver, uint32_t* count, ze_device_handle_t* devices) {
  auto& st = ZeState::get();
  if (!st.initialized()) return ZE_RESULT_ERROR_UNINITIALIZED;
  if (driver != st.driver()) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  std::vector<ze_device_handle_t> all;
  for (unsigned i = 0; i < st.device_count(); ++i) all.push_back(st.device(i));
  return enumerate(all, count, devices);
}

ze_result_t device_get_sub_devices(ze_device_handle_t device, uint32_t* count, ze_device_handle_t* /*subs*/) {
  return with_device(device, [&](const DeviceView&) {
    if (!count) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    *count = 0;  // each simulated GPU is one device (no tiles)
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t device_get_properties(ze_device_handle_t device, ze_device_properties_t* p) {
  return with_device(device, [&](const DeviceView& v) {
    if (!p) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const ze_structure_type_t stype = p->stype;
    void* next = p->pNext;
    std::memset(p, 0, sizeof(*p));
    p->stype = stype;
    p->pNext = next;
    p->type = ZE_DEVICE_TYPE_GPU;
    p->vendorId = 0x8086;
    // pci.device_id is NVML's form, the device id over the vendor's ("0x0BD58086").
    if (auto id = v.number(Key::PciDeviceId)) {
      const auto bits = static_cast<std::uint64_t>(*id);
      p->deviceId = static_cast<uint32_t>(bits > 0xFFFF ? bits >> 16 : bits);
    }
    if (auto mhz = v.number(Key::ClocksMaxSm)) p->coreClockRate = static_cast<uint32_t>(std::lround(*mhz));
    if (auto mib = v.number(Key::MemoryTotal)) p->maxMemAllocSize = static_cast<uint64_t>(*mib * kBytesPerMiB);
    p->maxHardwareContexts = 65536;
    p->timerResolution = stype == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 ? 1000000000ull : 1;  // cycles/s | ns
    p->timestampValidBits = 64;
    p->kernelTimestampValidBits = 32;
    uuid_bytes(v.text(Key::Uuid), v.scenario_gpu(), p->uuid.id);
    if (const std::string* name = v.text(Key::Name)) copy_text(*name, p->name, sizeof(p->name));
    return ZE_RESULT_SUCCESS;
  });
}

}  // namespace gpuwatch::sim::ze
