// Init, shutdown, error strings, versions, enumeration and handles.
#include <cstring>
#include <string>
#include <fmt/format.h>

#include "sim/driver/driver_state.hpp"
#include "sim/engine/nvml_errors.hpp"

using namespace gpuwatch::sim;
using namespace gpuwatch::sim::driver;

namespace {

nvmlReturn_t init_with(Fn fn, unsigned flags) noexcept {
  try {
    auto& st = DriverState::get();
    nvmlReturn_t r = st.init(flags);
    if (r != NVML_SUCCESS) return r;
    if (nvmlReturn_t f = st.apply_faults(fn, -1, st.now_t()); f != NVML_SUCCESS) {
      st.shutdown();
      return f;
    }
    return NVML_SUCCESS;
  } catch (...) {
    return NVML_ERROR_UNKNOWN;
  }
}

std::string nvml_version_of(const DriverSpec& d) { return d.nvml_version.empty() ? "12." + d.version : d.nvml_version; }

// INDEX is NVML's: the INDEX-th NVIDIA GPU of the scenario; faults name the scenario index.
nvmlReturn_t handle_by_index(Fn fn, unsigned index, nvmlDevice_t* device) noexcept {
  return with_system(fn, [&](const Simulation& sim) -> nvmlReturn_t {
    auto& st = DriverState::get();
    if (!device || index >= st.nvidia_gpus().size()) return NVML_ERROR_INVALID_ARGUMENT;
    const unsigned gpu = st.nvidia_gpus()[index];
    if (nvmlReturn_t f = st.apply_faults(fn, static_cast<int>(gpu), st.now_t()); f != NVML_SUCCESS) return f;
    if (st.now_t() >= sim.lost_at(gpu)) return NVML_ERROR_GPU_IS_LOST;
    *device = st.handle(gpu);
    return NVML_SUCCESS;
  });
}

nvmlReturn_t handle_by_bus_id(Fn fn, const char* bus_id, nvmlDevice_t* device) noexcept {
  return with_system(fn, [&](const Simulation& sim) -> nvmlReturn_t {
    if (!bus_id || !device) return NVML_ERROR_INVALID_ARGUMENT;
    auto& st = DriverState::get();
    std::string want(bus_id);
    for (unsigned g : st.nvidia_gpus()) {
      const Value& v = sim.static_value(g, Key::PciBusId);
      std::string have = v.text;
      // Accept the 8-digit and the 4-digit domain forms, case-insensitively.
      auto norm = [](std::string s) {
        for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (s.size() == 12) s = "0000" + s;
        return s;
      };
      if (norm(have) != norm(want)) continue;
      if (st.now_t() >= sim.lost_at(g)) return NVML_ERROR_GPU_IS_LOST;
      *device = st.handle(g);
      return NVML_SUCCESS;
    }
    return NVML_ERROR_NOT_FOUND;
  });
}

}  // namespace

GW_EXPORT const char* nvmlErrorString(nvmlReturn_t result) noexcept { return nvml_error_text(result); }

GW_EXPORT nvmlReturn_t nvmlInit(void) noexcept { return init_with(Fn::nvmlInit, 0); }
#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlInit_v2(void) noexcept { return init_with(Fn::nvmlInit_v2, 0); }
#endif
GW_EXPORT nvmlReturn_t nvmlInitWithFlags(unsigned int flags) noexcept { return init_with(Fn::nvmlInitWithFlags, flags); }
GW_EXPORT nvmlReturn_t nvmlShutdown(void) noexcept {
  try {
    return DriverState::get().shutdown();
  } catch (...) {
    return NVML_ERROR_UNKNOWN;
  }
}

GW_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned int length) noexcept {
  return with_system(Fn::nvmlSystemGetDriverVersion,
                     [&](const Simulation& sim) -> nvmlReturn_t { return copy_string(sim.scenario().driver.version, version, length); });
}

GW_EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char* version, unsigned int length) noexcept {
  // Works before nvmlInit, like the real library.
  try {
    auto& st = DriverState::get();
    std::string v = st.sim() ? nvml_version_of(st.sim()->scenario().driver) : "12.535.261.03";
    if (!st.sim()) {
      st.init(0);  // loads the scenario to learn its version
      if (st.sim()) v = nvml_version_of(st.sim()->scenario().driver);
      st.shutdown();
    }
    return copy_string(v, version, length);
  } catch (...) {
    return NVML_ERROR_UNKNOWN;
  }
}

GW_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* cuda) noexcept {
  return with_system(Fn::nvmlSystemGetCudaDriverVersion, [&](const Simulation& sim) -> nvmlReturn_t {
    if (!cuda) return NVML_ERROR_INVALID_ARGUMENT;
    *cuda = sim.scenario().driver.cuda_version;
    return NVML_SUCCESS;
  });
}

#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* cuda) noexcept {
  return with_system(Fn::nvmlSystemGetCudaDriverVersion_v2, [&](const Simulation& sim) -> nvmlReturn_t {
    if (!cuda) return NVML_ERROR_INVALID_ARGUMENT;
    *cuda = sim.scenario().driver.cuda_version;
    return NVML_SUCCESS;
  });
}
#endif

GW_EXPORT nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char* name, unsigned int length) noexcept {
  return with_system(Fn::nvmlSystemGetProcessName, [&](const Simulation& sim) -> nvmlReturn_t {
    if (!name || length == 0) return NVML_ERROR_INVALID_ARGUMENT;
    const std::string* n = sim.process_name(pid);
    if (!n) return NVML_ERROR_NOT_FOUND;
    // Like the driver: truncated to the buffer.
    std::size_t len = std::min<std::size_t>(n->size(), length - 1);
    std::memcpy(name, n->data(), len);
    name[len] = '\0';
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int* count) noexcept {
  return with_system(Fn::nvmlDeviceGetCount, [&](const Simulation&) -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    *count = static_cast<unsigned>(DriverState::get().nvidia_gpus().size());  // NVIDIA's only
    return NVML_SUCCESS;
  });
}

#ifndef GPUWATCH_SIM_LEGACY
GW_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int* count) noexcept {
  return with_system(Fn::nvmlDeviceGetCount_v2, [&](const Simulation&) -> nvmlReturn_t {
    if (!count) return NVML_ERROR_INVALID_ARGUMENT;
    *count = static_cast<unsigned>(DriverState::get().nvidia_gpus().size());  // NVIDIA's only
    return NVML_SUCCESS;
  });
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) noexcept {
  return handle_by_index(Fn::nvmlDeviceGetHandleByIndex_v2, index, device);
}
GW_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, nvmlDevice_t* device) noexcept {
  return handle_by_bus_id(Fn::nvmlDeviceGetHandleByPciBusId_v2, bus_id, device);
}
#endif

GW_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t* device) noexcept {
  return handle_by_index(Fn::nvmlDeviceGetHandleByIndex, index, device);
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char* bus_id, nvmlDevice_t* device) noexcept {
  return handle_by_bus_id(Fn::nvmlDeviceGetHandleByPciBusId, bus_id, device);
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char* uuid, nvmlDevice_t* device) noexcept {
  return with_system(Fn::nvmlDeviceGetHandleByUUID, [&](const Simulation& sim) -> nvmlReturn_t {
    if (!uuid || !device) return NVML_ERROR_INVALID_ARGUMENT;
    auto& st = DriverState::get();
    double t = st.now_t();
    for (unsigned g : st.nvidia_gpus())
      if (t >= sim.lost_at(g)) return NVML_ERROR_GPU_IS_LOST;  // any lost GPU fails the search
    std::string want(uuid);
    for (unsigned g : st.nvidia_gpus()) {
      if (sim.static_value(g, Key::Uuid).text == want) {
        *device = st.handle(g);
        return NVML_SUCCESS;
      }
      const auto& mig = sim.scenario().gpus[g].mig;
      for (std::size_t m = 0; m < mig.size(); ++m) {
        if (mig_uuid(sim, g, static_cast<unsigned>(m)) == want) {
          *device = st.handle(g, static_cast<int>(m));
          return NVML_SUCCESS;
        }
      }
    }
    return NVML_ERROR_NOT_FOUND;
  });
}
