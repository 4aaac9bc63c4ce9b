// Identity: index, name, UUID, serial, versions, brand, architecture, PCI info.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "sim/driver/driver_state.hpp"

using namespace gpuwatch::sim;
using namespace gpuwatch::sim::driver;

namespace {

nvmlReturn_t string_key(Fn fn, nvmlDevice_t device, Key key, char* buf, unsigned length) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    if (!buf) return NVML_ERROR_INVALID_ARGUMENT;
    if (v.mig() >= 0) return NVML_ERROR_NOT_SUPPORTED;
    const std::string* s = nullptr;
    if (nvmlReturn_t r = v.text(key, s); r != NVML_SUCCESS) return r;
    return copy_string(*s, buf, length);
  });
}

nvmlReturn_t pci_info(Fn fn, nvmlDevice_t device, nvmlPciInfo_t* pci) noexcept {
  return with_device(fn, device, [&](const View& v) -> nvmlReturn_t {
    if (!pci) return NVML_ERROR_INVALID_ARGUMENT;
    const std::string* bus_id = nullptr;
    if (nvmlReturn_t r = v.text(Key::PciBusId, bus_id); r != NVML_SUCCESS) return r;
    nvmlPciInfo_t out{};
    unsigned domain = 0, bus = 0, dev = 0, fnum = 0;
    std::sscanf(bus_id->c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fnum);
    double x = 0;
    const Simulation& sim = v.sim();
    auto num = [&](Key k, unsigned fallback) {
      const Value& val = sim.static_value(v.gpu(), k);
      return val.is_number() ? static_cast<unsigned>(val.integer) : fallback;
    };
    (void)x;
    out.domain = num(Key::PciDomain, domain);
    out.bus = num(Key::PciBus, bus);
    out.device = num(Key::PciDevice, dev);
    out.pciDeviceId = num(Key::PciDeviceId, 0);
    out.pciSubSystemId = num(Key::PciSubDeviceId, 0);
    std::snprintf(out.busId, sizeof(out.busId), "%s", bus_id->c_str());
    std::snprintf(out.busIdLegacy, sizeof(out.busIdLegacy), "%04X:%02X:%02X.0", out.domain & 0xFFFF, out.bus & 0xFF,
                  out.device & 0xFF);
    *pci = out;
    return NVML_SUCCESS;
  });
}

}  // namespace

GW_EXPORT nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int* index) noexcept {
  return with_device(Fn::nvmlDeviceGetIndex, device, [&](const View& v) -> nvmlReturn_t {
    if (!index) return NVML_ERROR_INVALID_ARGUMENT;
    if (v.mig() >= 0) {
      *index = static_cast<unsigned>(v.mig());
      return NVML_SUCCESS;
    }
    const auto& nvidia = DriverState::get().nvidia_gpus();  // NVML's index: among the NVIDIA GPUs
    *index = static_cast<unsigned>(std::find(nvidia.begin(), nvidia.end(), v.gpu()) - nvidia.begin());
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) noexcept {
  return with_device(Fn::nvmlDeviceGetName, device, [&](const View& v) -> nvmlReturn_t {
    if (!name) return NVML_ERROR_INVALID_ARGUMENT;
    if (v.mig() >= 0) return copy_string(mig_name(v.sim(), v.gpu(), static_cast<unsigned>(v.mig())), name, length);
    const std::string* s = nullptr;
    if (nvmlReturn_t r = v.text(Key::Name, s); r != NVML_SUCCESS) return r;
    return copy_string(*s, name, length);
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) noexcept {
  return with_device(Fn::nvmlDeviceGetUUID, device, [&](const View& v) -> nvmlReturn_t {
    if (!uuid) return NVML_ERROR_INVALID_ARGUMENT;
    if (v.mig() >= 0) return copy_string(mig_uuid(v.sim(), v.gpu(), static_cast<unsigned>(v.mig())), uuid, length);
    const std::string* s = nullptr;
    if (nvmlReturn_t r = v.text(Key::Uuid, s); r != NVML_SUCCESS) return r;
    return copy_string(*s, uuid, length);
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char* serial, unsigned int length) noexcept {
  return string_key(Fn::nvmlDeviceGetSerial, device, Key::Serial, serial, length);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char* part, unsigned int length) noexcept {
  return string_key(Fn::nvmlDeviceGetBoardPartNumber, device, Key::BoardPartNumber, part, length);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char* version, unsigned int length) noexcept {
  return string_key(Fn::nvmlDeviceGetVbiosVersion, device, Key::VbiosVersion, version, length);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char* version, unsigned int length) noexcept {
  return string_key(Fn::nvmlDeviceGetInforomImageVersion, device, Key::InforomImg, version, length);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetInforomVersion(nvmlDevice_t device, int object, char* version, unsigned int length) noexcept {
  Key key = object == NVML_INFOROM_OEM ? Key::InforomOem : object == NVML_INFOROM_ECC ? Key::InforomEcc : Key::InforomPwr;
  if (object < 0 || object > 2) {
    return with_device(Fn::nvmlDeviceGetInforomVersion, device, [](const View&) -> nvmlReturn_t { return NVML_ERROR_INVALID_ARGUMENT; });
  }
  return string_key(Fn::nvmlDeviceGetInforomVersion, device, key, version, length);
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, int* type) noexcept {
  return with_device(Fn::nvmlDeviceGetBrand, device, [&](const View& v) -> nvmlReturn_t {
    if (!type) return NVML_ERROR_INVALID_ARGUMENT;
    const std::string* s = nullptr;
    if (nvmlReturn_t r = v.text(Key::Brand, s); r != NVML_SUCCESS) return r;
    static const std::pair<const char*, int> kBrands[] = {
        {"Quadro", 1}, {"Tesla", 2}, {"NVS", 3}, {"GRID", 4}, {"GeForce", 5}, {"Titan", 6},
        {"NVIDIA RTX", 13}, {"NVIDIA", 14}, {"GeForce RTX", 15}, {"Titan RTX", 16}};
    *type = NVML_BRAND_UNKNOWN;
    for (auto [name, code] : kBrands)
      if (*s == name) *type = code;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, unsigned int* arch) noexcept {
  return with_device(Fn::nvmlDeviceGetArchitecture, device, [&](const View& v) -> nvmlReturn_t {
    if (!arch) return NVML_ERROR_INVALID_ARGUMENT;
    const std::string* s = nullptr;
    if (nvmlReturn_t r = v.text(Key::Architecture, s); r != NVML_SUCCESS) return r;
    static const std::pair<const char*, unsigned> kArchs[] = {
        {"Kepler", 2}, {"Maxwell", 3}, {"Pascal", 4}, {"Volta", 5}, {"Turing", 6}, {"Ampere", 7},
        {"Ada Lovelace", 8}, {"Ada", 8}, {"Hopper", 9}, {"Blackwell", 10}};
    *arch = 0xFFFFFFFFu;  // NVML_DEVICE_ARCH_UNKNOWN
    for (auto [name, code] : kArchs)
      if (*s == name) *arch = code;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int* major, int* minor) noexcept {
  return with_device(Fn::nvmlDeviceGetCudaComputeCapability, device, [&](const View& v) -> nvmlReturn_t {
    if (!major || !minor) return NVML_ERROR_INVALID_ARGUMENT;
    const Value& val = v.sim().static_value(v.gpu(), Key::ComputeCap);
    if (val.is_error()) return val.error;
    int a = 0, b = 0;
    if (std::sscanf(val.text.c_str(), "%d.%d", &a, &b) < 1) return NVML_ERROR_NOT_SUPPORTED;
    *major = a;
    *minor = b;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int* minor) noexcept {
  return with_device(Fn::nvmlDeviceGetMinorNumber, device, [&](const View& v) -> nvmlReturn_t {
    if (!minor) return NVML_ERROR_INVALID_ARGUMENT;
    return v.uint(Key::MinorNumber, 1, *minor);
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetNumGpuCores(nvmlDevice_t device, unsigned int* cores) noexcept {
  return with_device(Fn::nvmlDeviceGetNumGpuCores, device, [&](const View& v) -> nvmlReturn_t {
    if (!cores) return NVML_ERROR_INVALID_ARGUMENT;
    return v.uint(Key::GpuCores, 1, *cores);
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t* pci) noexcept {
  return pci_info(Fn::nvmlDeviceGetPciInfo, device, pci);
}
#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t* pci) noexcept {
  return pci_info(Fn::nvmlDeviceGetPciInfo_v2, device, pci);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) noexcept {
  return pci_info(Fn::nvmlDeviceGetPciInfo_v3, device, pci);
}
#endif
