#include "nvml/nvml_api.hpp"

#include <cstring>

#include <fmt/format.h>

namespace gpuwatch::nvml {
namespace {

constexpr unsigned kNoMigId = 0xFFFFFFFFu;

std::optional<std::uint64_t> memory_or_null(unsigned long long v) {
  if (v == NVML_VALUE_NOT_AVAILABLE_ULL) return std::nullopt;
  return v;
}
std::optional<unsigned> mig_id(unsigned id) {
  if (id == kNoMigId) return std::nullopt;
  return id;
}

// The size-query protocol over one process function and its record type.
template <typename Record, typename Fn>
nvmlReturn_t query_processes(Fn fn, nvmlDevice_t dev, std::vector<Record>* records) {
  unsigned count = 0;
  nvmlReturn_t rc = fn(dev, &count, nullptr);
  for (int attempt = 0; attempt < 4 && rc == NVML_ERROR_INSUFFICIENT_SIZE; ++attempt) {
    records->resize(count + 8u);  // processes may start between the calls
    count = static_cast<unsigned>(records->size());
    rc = fn(dev, &count, records->data());
  }
  if (rc == NVML_SUCCESS) {
    records->resize(std::min<std::size_t>(count, records->size()));
  } else {
    records->clear();
  }
  return rc;
}

template <typename Record>
RawProcess to_raw(const Record& r) {
  RawProcess p;
  p.pid = r.pid;
  p.used_memory_bytes = memory_or_null(r.usedGpuMemory);
  if constexpr (sizeof(Record) > sizeof(nvmlProcessInfo_v1_t)) {
    p.gpu_instance_id = mig_id(r.gpuInstanceId);
    p.compute_instance_id = mig_id(r.computeInstanceId);
  }
  return p;
}

template <typename Record, typename Fn>
nvmlReturn_t collect(Fn fn, nvmlDevice_t dev, std::vector<RawProcess>* out) {
  thread_local std::vector<Record> records;  // reused: sampling is a hot path
  nvmlReturn_t rc = query_processes<Record>(fn, dev, &records);
  out->clear();
  for (const auto& r : records) out->push_back(to_raw(r));
  return rc;
}

bool try_older(nvmlReturn_t rc) {
  return rc == NVML_ERROR_FUNCTION_NOT_FOUND || rc == NVML_ERROR_NOT_SUPPORTED ||
         rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
}

}  // namespace

std::string NvmlApi::error_string(nvmlReturn_t code) const {
  if (fns_.nvmlErrorString != nullptr) {
    const char* text = fns_.nvmlErrorString(code);
    if (text != nullptr) return text;
  }
  return fmt::format("NVML error {}", code);
}

nvmlReturn_t NvmlApi::init() const {
  if (fns_.nvmlInit_v2) return fns_.nvmlInit_v2();
  if (fns_.nvmlInit) return fns_.nvmlInit();
  if (fns_.nvmlInitWithFlags) return fns_.nvmlInitWithFlags(0);
  return NVML_ERROR_FUNCTION_NOT_FOUND;
}

nvmlReturn_t NvmlApi::shutdown() const { return GW_NVML_CALL(fns_, nvmlShutdown); }

nvmlReturn_t NvmlApi::device_count(unsigned* count) const {
  if (fns_.nvmlDeviceGetCount_v2) return fns_.nvmlDeviceGetCount_v2(count);
  return GW_NVML_CALL(fns_, nvmlDeviceGetCount, count);
}

nvmlReturn_t NvmlApi::handle_by_index(unsigned index, nvmlDevice_t* dev) const {
  if (fns_.nvmlDeviceGetHandleByIndex_v2) return fns_.nvmlDeviceGetHandleByIndex_v2(index, dev);
  return GW_NVML_CALL(fns_, nvmlDeviceGetHandleByIndex, index, dev);
}

nvmlReturn_t NvmlApi::pci_info(nvmlDevice_t dev, nvmlPciInfo_t* pci) const {
  if (fns_.nvmlDeviceGetPciInfo_v3) return fns_.nvmlDeviceGetPciInfo_v3(dev, pci);
  if (fns_.nvmlDeviceGetPciInfo_v2) return fns_.nvmlDeviceGetPciInfo_v2(dev, pci);
  return GW_NVML_CALL(fns_, nvmlDeviceGetPciInfo, dev, pci);
}

nvmlReturn_t NvmlApi::memory_info(nvmlDevice_t dev, MemoryInfo* out) const {
  nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
  if (fns_.nvmlDeviceGetMemoryInfo_v2) {
    nvmlMemory_v2_t m{};
    m.version = nvmlMemory_v2;
    rc = fns_.nvmlDeviceGetMemoryInfo_v2(dev, &m);
    if (rc == NVML_SUCCESS) {
      *out = MemoryInfo{m.total, m.free, m.used, m.reserved};
      return rc;
    }
    if (!try_older(rc)) return rc;
  }
  if (fns_.nvmlDeviceGetMemoryInfo) {
    nvmlMemory_t m{};
    rc = fns_.nvmlDeviceGetMemoryInfo(dev, &m);
    if (rc == NVML_SUCCESS) *out = MemoryInfo{m.total, m.free, m.used, std::nullopt};
  }
  return rc;
}

nvmlReturn_t NvmlApi::current_clocks_event_reasons(nvmlDevice_t dev, unsigned long long* mask) const {
  if (fns_.nvmlDeviceGetCurrentClocksEventReasons) return fns_.nvmlDeviceGetCurrentClocksEventReasons(dev, mask);
  return GW_NVML_CALL(fns_, nvmlDeviceGetCurrentClocksThrottleReasons, dev, mask);
}

nvmlReturn_t NvmlApi::supported_clocks_event_reasons(nvmlDevice_t dev, unsigned long long* mask) const {
  if (fns_.nvmlDeviceGetSupportedClocksEventReasons) return fns_.nvmlDeviceGetSupportedClocksEventReasons(dev, mask);
  return GW_NVML_CALL(fns_, nvmlDeviceGetSupportedClocksThrottleReasons, dev, mask);
}

nvmlReturn_t NvmlApi::running_processes(nvmlDevice_t dev, ProcessKind kind, std::vector<RawProcess>* out) const {
  const bool compute = kind == ProcessKind::Compute;
  auto v3 = compute ? fns_.nvmlDeviceGetComputeRunningProcesses_v3 : fns_.nvmlDeviceGetGraphicsRunningProcesses_v3;
  auto v2 = compute ? fns_.nvmlDeviceGetComputeRunningProcesses_v2 : fns_.nvmlDeviceGetGraphicsRunningProcesses_v2;
  auto v1 = compute ? fns_.nvmlDeviceGetComputeRunningProcesses : fns_.nvmlDeviceGetGraphicsRunningProcesses;
  if (v3) return collect<nvmlProcessInfo_t>(v3, dev, out);
  if (v2) return collect<nvmlProcessInfo_v2_t>(v2, dev, out);
  if (v1) return collect<nvmlProcessInfo_v1_t>(v1, dev, out);
  out->clear();
  return NVML_ERROR_FUNCTION_NOT_FOUND;
}

nvmlReturn_t NvmlApi::cuda_driver_version(int* version) const {
  if (fns_.nvmlSystemGetCudaDriverVersion_v2) return fns_.nvmlSystemGetCudaDriverVersion_v2(version);
  return GW_NVML_CALL(fns_, nvmlSystemGetCudaDriverVersion, version);
}

nvmlReturn_t NvmlApi::gpu_fabric_info(nvmlDevice_t dev, FabricInfo* out) const {
  nvmlReturn_t rc = NVML_ERROR_FUNCTION_NOT_FOUND;
  if (fns_.nvmlDeviceGetGpuFabricInfoV) {
    nvmlGpuFabricInfo_v2_t v2{};
    v2.version = nvmlGpuFabricInfo_v2;
    rc = fns_.nvmlDeviceGetGpuFabricInfoV(dev, &v2);
    if (rc == NVML_SUCCESS) {
      std::memcpy(out->cluster_uuid, v2.clusterUuid, sizeof out->cluster_uuid);
      out->status = v2.status;
      out->clique_id = v2.cliqueId;
      out->state = v2.state;
      return rc;
    }
    if (!try_older(rc)) return rc;
  }
  if (fns_.nvmlDeviceGetGpuFabricInfo) {
    nvmlGpuFabricInfo_t v1{};
    rc = fns_.nvmlDeviceGetGpuFabricInfo(dev, &v1);
    if (rc == NVML_SUCCESS) {
      std::memcpy(out->cluster_uuid, v1.clusterUuid, sizeof out->cluster_uuid);
      out->status = v1.status;
      out->clique_id = v1.cliqueId;
      out->state = v1.state;
    }
  }
  return rc;
}

}  // namespace gpuwatch::nvml
