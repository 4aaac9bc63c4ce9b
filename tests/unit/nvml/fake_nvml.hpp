#pragma once
// An in-process fake of NVML for unit tests (header-only): NvmlFunctions whose
// entries read the active FakeNvml state. Unset entries stay nullptr (a missing symbol).
#include <cstring>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "nvml/nvml_api.hpp"
#include "nvml/nvml_backend.hpp"

namespace gpuwatch::testing {

struct FakeDevice {
  std::string name = "Fake GPU";
  std::string uuid = "GPU-11111111-2222-3333-4444-555555555555";
  std::string bus_id = "00000000:01:00.0";
  nvmlReturn_t handle_rc = NVML_SUCCESS;  // GetHandleByIndex answer
  unsigned power_mw = 123450;
  nvmlReturn_t power_rc = NVML_SUCCESS;
  unsigned temperature_c = 42;
  nvmlReturn_t temperature_rc = NVML_SUCCESS;
  unsigned long long mem_total = 81559ull << 20, mem_reserved = 479ull << 20, mem_used = 19818ull << 20;
  nvmlReturn_t memory_v2_rc = NVML_SUCCESS;
  nvmlReturn_t fan_rc = NVML_ERROR_NOT_SUPPORTED;
  unsigned fan_pct = 0;
  std::vector<nvmlProcessInfo_v2_t> compute, graphics;
};

struct FakeNvml {
  std::vector<FakeDevice> devices;
  nvmlReturn_t init_rc = NVML_SUCCESS;
  std::atomic<unsigned> last_memory_version{0};
  std::map<std::string, int> calls;  // read once the callers have stopped
  std::mutex calls_mutex;            // the exporter's collector calls from a thread per GPU
  void count(const std::string& function) {
    std::lock_guard lock(calls_mutex);
    ++calls[function];
  }
};

inline FakeNvml*& active_fake() {
  static FakeNvml* fake = nullptr;
  return fake;
}

namespace fake_detail {
inline FakeDevice* dev(nvmlDevice_t d) {
  auto i = reinterpret_cast<std::uintptr_t>(d) - 1;
  auto& devs = active_fake()->devices;
  return i < devs.size() ? &devs[i] : nullptr;
}
inline nvmlReturn_t copy(const std::string& s, char* buf, unsigned len) {
  if (s.size() + 1 > len) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(buf, s.c_str(), s.size() + 1);
  return NVML_SUCCESS;
}
inline nvmlReturn_t processes(std::vector<nvmlProcessInfo_v2_t>& list, unsigned* count, nvmlProcessInfo_v2_t* out) {
  if (*count < list.size()) {
    *count = static_cast<unsigned>(list.size());
    return list.empty() ? NVML_SUCCESS : NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (std::size_t i = 0; i < list.size(); ++i) out[i] = list[i];
  *count = static_cast<unsigned>(list.size());
  return NVML_SUCCESS;
}
}  // namespace fake_detail

// Installs `state` as the active fake; the table has init, count, handles, name,
// uuid, PCI info v3, memory info v2 + v1, power, temperature, fan, processes _v3,
// process name and error string.
inline nvml::NvmlFunctions make_fake_functions(FakeNvml& state) {
  using namespace fake_detail;
  active_fake() = &state;
  nvml::NvmlFunctions f;
  f.nvmlInit_v2 = [] { return active_fake()->init_rc; };
  f.nvmlShutdown = [] { return nvmlReturn_t{NVML_SUCCESS}; };
  f.nvmlErrorString = [](nvmlReturn_t rc) -> const char* {
    switch (rc) {
      case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
      case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
      case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
      case NVML_ERROR_TIMEOUT: return "Timeout";
      case NVML_ERROR_DEPRECATED: return "Requested functionality has been deprecated";
      default: return "Unknown Error";
    }
  };
  f.nvmlDeviceGetCount_v2 = [](unsigned* n) {
    *n = static_cast<unsigned>(active_fake()->devices.size());
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlDeviceGetHandleByIndex_v2 = [](unsigned i, nvmlDevice_t* d) {
    auto& devs = active_fake()->devices;
    if (i >= devs.size()) return nvmlReturn_t{NVML_ERROR_INVALID_ARGUMENT};
    if (devs[i].handle_rc != NVML_SUCCESS) return devs[i].handle_rc;
    *d = reinterpret_cast<nvmlDevice_t>(static_cast<std::uintptr_t>(i + 1));
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlDeviceGetName = [](nvmlDevice_t d, char* b, unsigned n) { return copy(dev(d)->name, b, n); };
  f.nvmlDeviceGetUUID = [](nvmlDevice_t d, char* b, unsigned n) { return copy(dev(d)->uuid, b, n); };
  f.nvmlDeviceGetPciInfo_v3 = [](nvmlDevice_t d, nvmlPciInfo_t* p) {
    *p = nvmlPciInfo_t{};
    std::strncpy(p->busId, dev(d)->bus_id.c_str(), sizeof p->busId - 1);
    p->bus = 1;
    p->pciDeviceId = 0x233010DE;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlDeviceGetMemoryInfo_v2 = [](nvmlDevice_t d, nvmlMemory_v2_t* m) {
    active_fake()->count("nvmlDeviceGetMemoryInfo_v2");
    active_fake()->last_memory_version = m->version;
    if (m->version != nvmlMemory_v2) return nvmlReturn_t{NVML_ERROR_FUNCTION_NOT_FOUND};
    auto* x = dev(d);
    if (x->memory_v2_rc != NVML_SUCCESS) return x->memory_v2_rc;
    m->total = x->mem_total;
    m->reserved = x->mem_reserved;
    m->used = x->mem_used;
    m->free = x->mem_total - x->mem_reserved - x->mem_used;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlDeviceGetMemoryInfo = [](nvmlDevice_t d, nvmlMemory_t* m) {
    active_fake()->count("nvmlDeviceGetMemoryInfo");
    auto* x = dev(d);
    m->total = x->mem_total;
    m->free = x->mem_total - x->mem_reserved - x->mem_used;
    m->used = x->mem_used + x->mem_reserved;
    return nvmlReturn_t{NVML_SUCCESS};
  };
  f.nvmlDeviceGetPowerUsage = [](nvmlDevice_t d, unsigned* mw) {
    active_fake()->count("nvmlDeviceGetPowerUsage");
    *mw = dev(d)->power_mw;
    return dev(d)->power_rc;
  };
  f.nvmlDeviceGetTemperature = [](nvmlDevice_t d, int, unsigned* c) {
    active_fake()->count("nvmlDeviceGetTemperature");
    *c = dev(d)->temperature_c;
    return dev(d)->temperature_rc;
  };
  f.nvmlDeviceGetFanSpeed = [](nvmlDevice_t d, unsigned* pct) {
    active_fake()->count("nvmlDeviceGetFanSpeed");
    *pct = dev(d)->fan_pct;
    return dev(d)->fan_rc;
  };
  f.nvmlDeviceGetComputeRunningProcesses_v3 = [](nvmlDevice_t d, unsigned* n, nvmlProcessInfo_t* out) {
    return processes(dev(d)->compute, n, out);
  };
  f.nvmlDeviceGetGraphicsRunningProcesses_v3 = [](nvmlDevice_t d, unsigned* n, nvmlProcessInfo_t* out) {
    return processes(dev(d)->graphics, n, out);
  };
  f.nvmlSystemGetProcessName = [](unsigned pid, char* b, unsigned n) { return copy("proc" + std::to_string(pid), b, n); };
  f.nvmlSystemGetDriverVersion = [](char* b, unsigned n) { return copy("590.48.01", b, n); };
  return f;
}

}  // namespace gpuwatch::testing
