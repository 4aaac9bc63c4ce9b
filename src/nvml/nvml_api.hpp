#pragma once
// NvmlApi: the seam between gpuwatch and libnvidia-ml. Wraps the raw function table
// with the versioned fallbacks (newest symbol first, the struct layout of the symbol
// actually called) so callers never see _v2/_v3. Unit tests build one over fake
// functions; production gets one from NvmlLibrary (nvml_library.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "nvml/nvml_functions.hpp"

namespace gpuwatch::nvml {

struct MemoryInfo {
  std::uint64_t total_bytes = 0, free_bytes = 0, used_bytes = 0;
  std::optional<std::uint64_t> reserved_bytes;  // only from nvmlDeviceGetMemoryInfo_v2
};

struct RawProcess {
  unsigned pid = 0;
  std::optional<std::uint64_t> used_memory_bytes;  // nullopt for NVML_VALUE_NOT_AVAILABLE
  std::optional<unsigned> gpu_instance_id, compute_instance_id;  // nullopt for 0xFFFFFFFF / v1
};

enum class ProcessKind { Compute, Graphics };

// NVLink fabric registration (nvmlGpuFabricInfo_t / _v2_t, whichever was called).
struct FabricInfo {
  unsigned char cluster_uuid[NVML_GPU_FABRIC_UUID_LEN] = {};
  nvmlReturn_t status = NVML_SUCCESS;  // meaningful when state is COMPLETED
  unsigned clique_id = 0;
  unsigned state = NVML_GPU_FABRIC_STATE_NOT_SUPPORTED;
};

class NvmlApi {
 public:
  explicit NvmlApi(NvmlFunctions fns) : fns_(fns) {}

  const NvmlFunctions& raw() const { return fns_; }
  // nvmlErrorString(code), or a fallback text when the symbol is missing.
  std::string error_string(nvmlReturn_t code) const;

  nvmlReturn_t init() const;      // nvmlInit_v2 -> nvmlInit -> nvmlInitWithFlags(0)
  nvmlReturn_t shutdown() const;
  nvmlReturn_t device_count(unsigned* count) const;                      // _v2 -> plain
  nvmlReturn_t handle_by_index(unsigned index, nvmlDevice_t* dev) const;  // _v2 -> plain
  nvmlReturn_t pci_info(nvmlDevice_t dev, nvmlPciInfo_t* pci) const;      // _v3 -> _v2 -> plain
  // _v2 with version nvmlMemory_v2 (0x02000028); v1 when _v2 is missing or answers
  // FUNCTION_NOT_FOUND / NOT_SUPPORTED / ARGUMENT_VERSION_MISMATCH.
  nvmlReturn_t memory_info(nvmlDevice_t dev, MemoryInfo* out) const;
  // ClocksEventReasons -> ClocksThrottleReasons.
  nvmlReturn_t current_clocks_event_reasons(nvmlDevice_t dev, unsigned long long* mask) const;
  nvmlReturn_t supported_clocks_event_reasons(nvmlDevice_t dev, unsigned long long* mask) const;
  // Running processes: _v3 -> _v2 (24-byte records) -> plain (16-byte records),
  // with the size-query protocol (count 0 -> INSUFFICIENT_SIZE -> retry).
  nvmlReturn_t running_processes(nvmlDevice_t dev, ProcessKind kind, std::vector<RawProcess>* out) const;
  nvmlReturn_t cuda_driver_version(int* version) const;  // _v2 -> plain
  // nvmlDeviceGetGpuFabricInfoV (version nvmlGpuFabricInfo_v2) -> nvmlDeviceGetGpuFabricInfo.
  nvmlReturn_t gpu_fabric_info(nvmlDevice_t dev, FabricInfo* out) const;

 private:
  NvmlFunctions fns_;
};

// Calls fns.<name>(args...) or returns NVML_ERROR_FUNCTION_NOT_FOUND when the
// symbol is missing: GW_NVML_CALL(api.raw(), nvmlDeviceGetName, dev, buf, len).
#define GW_NVML_CALL(fns, name, ...) \
  ((fns).name != nullptr ? (fns).name(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

}  // namespace gpuwatch::nvml
