#include "nvml/mig_reader.hpp"

namespace gpuwatch::nvml {

std::string mig_profile_of(std::string_view name) {
  std::size_t at = name.rfind("MIG ");
  if (at == std::string_view::npos) return "";
  std::string_view profile = name.substr(at + 4);
  while (!profile.empty() && profile.back() == ' ') profile.remove_suffix(1);
  return std::string(profile);
}

nvmlReturn_t read_mig_devices(const NvmlApi& api, nvmlDevice_t dev, std::vector<core::MigDeviceSample>& out) {
  out.clear();
  const NvmlFunctions& f = api.raw();
  unsigned current = 0, pending = 0;
  nvmlReturn_t rc = GW_NVML_CALL(f, nvmlDeviceGetMigMode, dev, &current, &pending);
  if (rc == NVML_ERROR_GPU_IS_LOST) return rc;
  if (rc != NVML_SUCCESS || current == 0) return NVML_SUCCESS;
  unsigned count = 0;
  rc = GW_NVML_CALL(f, nvmlDeviceGetMaxMigDeviceCount, dev, &count);
  if (rc != NVML_SUCCESS) return rc == NVML_ERROR_GPU_IS_LOST ? rc : NVML_SUCCESS;
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t mig = nullptr;
    rc = GW_NVML_CALL(f, nvmlDeviceGetMigDeviceHandleByIndex, dev, i, &mig);
    if (rc == NVML_ERROR_GPU_IS_LOST) return rc;
    if (rc != NVML_SUCCESS) continue;  // NOT_FOUND: no MIG device in this slot
    core::MigDeviceSample s;
    if (GW_NVML_CALL(f, nvmlDeviceGetGpuInstanceId, mig, &s.gpu_instance_id) != NVML_SUCCESS ||
        GW_NVML_CALL(f, nvmlDeviceGetComputeInstanceId, mig, &s.compute_instance_id) != NVML_SUCCESS)
      continue;
    char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    if (GW_NVML_CALL(f, nvmlDeviceGetUUID, mig, text, static_cast<unsigned>(sizeof text)) == NVML_SUCCESS) s.uuid = text;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    if (GW_NVML_CALL(f, nvmlDeviceGetName, mig, name, static_cast<unsigned>(sizeof name)) == NVML_SUCCESS)
      s.profile = mig_profile_of(name);
    MemoryInfo m;
    if (api.memory_info(mig, &m) == NVML_SUCCESS) {
      s.memory_total_bytes = m.total_bytes;
      s.memory_used_bytes = m.used_bytes;
      s.memory_free_bytes = m.free_bytes;
      s.memory_reserved_bytes = m.reserved_bytes;
    }
    out.push_back(std::move(s));
  }
  return NVML_SUCCESS;
}

}  // namespace gpuwatch::nvml
