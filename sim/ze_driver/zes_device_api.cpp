// Sysman's device functions: properties, PCI address, processes.
#include <cstdio>
#include <cstring>

#include "sim/ze_driver/ze_functions.hpp"

namespace gpuwatch::sim::ze {
namespace {

// "domain:bus:device.function" in hex, NVML's ("00000000:3B:00.0") or the kernel's ("0000:3b:00.0").
bool parse_pci_address(const std::string& text, zes_pci_address_t& out) {
  unsigned domain = 0, bus = 0, dev = 0, fn = 0;
  if (std::sscanf(text.c_str(), "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4) return false;
  out = {domain, bus, dev, fn};
  return true;
}

template <class Struct>
void clear_keeping_header(Struct* p) {
  const auto stype = p->stype;
  auto* next = p->pNext;
  std::memset(static_cast<void*>(p), 0, sizeof(*p));
  p->stype = stype;
  p->pNext = next;
}

}  // namespace

ze_result_t zes_device_get_properties(zes_device_handle_t device, zes_device_properties_t* p) {
  if (!p) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  ze_device_properties_t core = p->core;
  core.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  core.pNext = nullptr;
  if (ze_result_t r = device_get_properties(device, &core); r != ZE_RESULT_SUCCESS) return r;
  return with_device(device, [&](const DeviceView& v) {
    clear_keeping_header(p);
    p->core = core;
    p->numSubdevices = 0;
    const std::string unknown = "unknown";  // the spec's word for a string the driver cannot tell
    const std::string* serial = v.text(Key::Serial);
    const std::string* name = v.text(Key::Name);
    const std::string* version = v.text(Key::DriverVersion);
    copy_text(serial ? *serial : unknown, p->serialNumber, sizeof(p->serialNumber));
    copy_text(unknown, p->boardNumber, sizeof(p->boardNumber));
    copy_text(name ? *name : unknown, p->brandName, sizeof(p->brandName));
    copy_text(name ? *name : unknown, p->modelName, sizeof(p->modelName));
    copy_text("Intel(R) Corporation", p->vendorName, sizeof(p->vendorName));
    copy_text(version ? *version : unknown, p->driverVersion, sizeof(p->driverVersion));
    return ZE_RESULT_SUCCESS;
  });
}

ze_result_t zes_device_pci_get_properties(zes_device_handle_t device, zes_pci_properties_t* p) {
  return with_device(device, [&](const DeviceView& v) {
    if (!p) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const std::string* bus_id = v.text(Key::PciBusId);
    zes_pci_address_t address{};
    if (!bus_id || !parse_pci_address(*bus_id, address)) return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    clear_keeping_header(p);
    p->address = address;
    const auto gen = v.number(Key::PcieLinkGenMax);
    const auto width = v.number(Key::PcieLinkWidthMax);
    p->maxSpeed.gen = gen ? static_cast<int32_t>(*gen) : -1;
    p->maxSpeed.width = width ? static_cast<int32_t>(*width) : -1;
    p->maxSpeed.maxBandwidth = -1;
    p->haveBandwidthCounters = false;
    p->havePacketCounters = false;
    p->haveReplayCounters = false;
    return ZE_RESULT_SUCCESS;
  });
}

// The scenario's processes with a PID (fixed, or the stand-ins of GPUWATCH_SIM_PIDS), as the
// NVML driver lists them. Fewer slots than processes: the first *COUNT and INVALID_SIZE.
ze_result_t zes_device_processes_get_state(zes_device_handle_t device, uint32_t* count, zes_process_state_t* out) {
  return with_device(device, [&](const DeviceView& v) {
    if (!count) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    const auto& all = v.sample().processes;
    const auto n = static_cast<uint32_t>(all.size());
    if (*count == 0 || !out) {
      *count = n;
      return ZE_RESULT_SUCCESS;
    }
    const uint32_t k = *count < n ? *count : n;
    for (uint32_t i = 0; i < k; ++i) {
      const ProcessSample& ps = all[i];
      out[i].processId = ps.pid;
      out[i].memSize = static_cast<uint64_t>(ps.memory_mib * kBytesPerMiB);
      out[i].sharedSize = 0;
      out[i].engines = (ps.compute ? ZES_ENGINE_TYPE_FLAG_COMPUTE : 0) | (ps.graphics ? ZES_ENGINE_TYPE_FLAG_3D : 0);
    }
    const bool truncated = *count < n;
    *count = truncated ? *count : n;
    return truncated ? ZE_RESULT_ERROR_INVALID_SIZE : ZE_RESULT_SUCCESS;
  });
}

}  // namespace gpuwatch::sim::ze
