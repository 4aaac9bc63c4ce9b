#pragma once
// NVIDIA's device backend: backend::DeviceBackend over NVML (NvmlApi, and the readers beside
// it: field_readers for the read groups, process_reader, gpm_reader + sample_buffer_reader +
// mig_reader for the profiling reads, xid_event_set for the events). The only place NVML's
// handles and return codes meet the rest of gpuwatch: codes become core::ReadError here
// (error_from_nvml), handles become backend::DeviceHandle.
#include <atomic>
#include <memory>
#include <string>

#include "backend/backends.hpp"
#include "backend/device_backend.hpp"
#include "nvml/nvml_api.hpp"
#include "nvml/nvml_library.hpp"
#include "nvml/nvlink_rates.hpp"

namespace gpuwatch::nvml {

class NvmlBackend final : public backend::DeviceBackend {
 public:
  // Over a loaded libnvidia-ml (owned), or over a function table (unit tests' fakes).
  explicit NvmlBackend(std::unique_ptr<NvmlLibrary> library);
  explicit NvmlBackend(NvmlFunctions functions);

  const NvmlApi& api() const { return api_; }
  // The NVML handle behind a handle this backend made (nullptr for none).
  static nvmlDevice_t nvml_device(backend::DeviceHandle handle) {
    return static_cast<nvmlDevice_t>(const_cast<void*>(handle.raw));
  }

  core::Vendor vendor() const override { return core::Vendor::Nvidia; }
  std::string describe() const override;
  core::ReadError device_count(unsigned* count) const override;
  core::ReadError handle_by_index(unsigned index, backend::DeviceHandle* handle) const override;
  core::ReadError read_source(backend::DeviceHandle dev, core::Source source, std::span<const core::FieldId> fields,
                              core::DeviceSnapshot& device) const override;
  core::ReadError read_processes(backend::DeviceHandle dev, unsigned long long* utilization_since_us,
                                 core::DeviceSnapshot& device) const override;
  // Fails with NVML_ERROR_UNKNOWN whatever NVML answered (what CSV has always shown).
  core::ReadError driver_version(std::string& out) const override;
  core::ReadError cuda_driver_version(int* version) const override;
  std::string error_text(core::ReadError error) const override;
  core::ReadError error_of(core::ErrorReason reason) const override;
  core::ReadError last_error() const override;
  std::unique_ptr<backend::ProfilingReader> profiling_reader(unsigned index) const override;
  std::unique_ptr<backend::EventSource> open_events(unsigned gpu_count) const override;
  bool set_sim_clock(long long unix_ms) const override;
  bool has_sim_clock() const override;
  std::optional<double> sim_time_scale() const override;

 private:
  core::ReadError checked(nvmlReturn_t rc) const;  // maps, and remembers a failure (last_error)

  std::unique_ptr<NvmlLibrary> library_;  // null over a function table
  NvmlApi api_;
  NvmlLibrary::SimClockSetter sim_clock_ = nullptr;  // the simulator's clock control, resolved once
  mutable std::atomic<int> last_failure_{0};  // the latest failing nvmlReturn_t
  mutable NvlinkRates nvlink_;  // the previous NVLink counters of each GPU (Source::NvlinkThroughput)
};

// The vendor table's row for NVIDIA (cli/open_backends.cpp, capi/monitor.cpp): opens
// libnvidia-ml (OpenOptions::nvidia_library, or the loader's default).
core::Result<std::unique_ptr<backend::DeviceBackend>> open_backend(const backend::OpenOptions& options);
inline constexpr backend::Opener kOpener{"NVML", &open_backend};

}  // namespace gpuwatch::nvml
