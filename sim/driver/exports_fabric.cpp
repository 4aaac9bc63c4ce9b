// NVLink fabric registration (nvmlDeviceGetGpuFabricInfo / ...V), from the scenario's
// fabric.state, fabric.status, fabric.cliqueId and fabric.clusterUuid keys. A GPU whose
// fabric.state is "[N/A]" (PCIe boards, pre-Hopper) answers NOT_SUPPORTED, as real
// drivers do; the legacy library (old drivers) does not export these functions.
#include <cstdio>
#include <cstring>
#include <string>

#include "sim/driver/driver_state.hpp"

#ifndef GPUWATCH_SIM_LEGACY  // the whole file: old drivers have no fabric API
using namespace gpuwatch::sim;
using namespace gpuwatch::sim::driver;

namespace {

// nvidia-smi's words for nvmlGpuFabricState_t.
bool fabric_state_from_text(const std::string& s, nvmlGpuFabricState_t& out) {
  static constexpr const char* kNames[] = {"Not Supported", "Not Started", "In Progress", "Completed"};
  for (unsigned i = 0; i < 4; ++i) {
    if (s == kNames[i]) {
      out = static_cast<nvmlGpuFabricState_t>(i);
      return true;
    }
  }
  return false;
}

// "Success" -> NVML_SUCCESS; any other text -> NVML_ERROR_UNKNOWN (nvidia-smi prints the code's string).
nvmlReturn_t fabric_status_from_text(const std::string& s) {
  return s == "Success" ? NVML_SUCCESS : s == "Not Supported" ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_UNKNOWN;
}

struct Fabric {
  unsigned char uuid[NVML_GPU_FABRIC_UUID_LEN] = {};
  nvmlReturn_t status = NVML_SUCCESS;
  unsigned clique = 0;
  nvmlGpuFabricState_t state = NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
};

nvmlReturn_t read_fabric(const View& v, Fabric& out) {
  if (v.mig() >= 0) return NVML_ERROR_NOT_SUPPORTED;
  const std::string* state = nullptr;
  if (nvmlReturn_t r = v.text(Key::FabricState, state); r != NVML_SUCCESS) return r;
  if (!fabric_state_from_text(*state, out.state)) return NVML_ERROR_NOT_SUPPORTED;
  const std::string* status = nullptr;
  if (v.text(Key::FabricStatus, status) == NVML_SUCCESS) out.status = fabric_status_from_text(*status);
  double clique = 0;
  if (v.number(Key::FabricCliqueId, clique) == NVML_SUCCESS && clique >= 0) out.clique = static_cast<unsigned>(clique);
  const std::string* uuid = nullptr;
  if (v.text(Key::FabricClusterUuid, uuid) == NVML_SUCCESS) {
    // "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" -> 16 bytes.
    unsigned byte = 0;
    for (std::size_t i = 0; i + 1 < uuid->size() && byte < NVML_GPU_FABRIC_UUID_LEN;) {
      if ((*uuid)[i] == '-') { ++i; continue; }
      unsigned x = 0;
      if (std::sscanf(uuid->c_str() + i, "%2x", &x) != 1) break;
      out.uuid[byte++] = static_cast<unsigned char>(x);
      i += 2;
    }
  }
  return NVML_SUCCESS;
}

}  // namespace

GW_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t* info) noexcept {
  return with_device(Fn::nvmlDeviceGetGpuFabricInfo, device, [&](const View& v) -> nvmlReturn_t {
    if (!info) return NVML_ERROR_INVALID_ARGUMENT;
    Fabric f;
    if (nvmlReturn_t r = read_fabric(v, f); r != NVML_SUCCESS) return r;
    nvmlGpuFabricInfo_t out{};
    std::memcpy(out.clusterUuid, f.uuid, sizeof out.clusterUuid);
    out.status = f.status;
    out.cliqueId = f.clique;
    out.state = f.state;
    *info = out;
    return NVML_SUCCESS;
  });
}

GW_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t* info) noexcept {
  return with_device(Fn::nvmlDeviceGetGpuFabricInfoV, device, [&](const View& v) -> nvmlReturn_t {
    if (!info) return NVML_ERROR_INVALID_ARGUMENT;
    // Version 2 (36 bytes) only; a newer layout's version is refused as real r550 drivers do.
    if (info->version != nvmlGpuFabricInfo_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    Fabric f;
    if (nvmlReturn_t r = read_fabric(v, f); r != NVML_SUCCESS) return r;
    std::memcpy(info->clusterUuid, f.uuid, sizeof info->clusterUuid);
    info->status = f.status;
    info->cliqueId = f.clique;
    info->state = f.state;
    info->healthMask = 0;  // healthy: no degraded bandwidth, no route recovery
    return NVML_SUCCESS;
  });
}
#endif
