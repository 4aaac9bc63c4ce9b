#include "nvml/nvml_backend.hpp"

#include <chrono>

#include "nvml/field_readers.hpp"
#include "nvml/gpm_reader.hpp"
#include "nvml/mig_reader.hpp"
#include "nvml/sample_buffer_reader.hpp"
#include "nvml/xid_event_set.hpp"

namespace gpuwatch::nvml {
namespace {

backend::DeviceHandle handle_of(const NvmlBackend* owner, nvmlDevice_t dev) {
  return backend::DeviceHandle{owner, dev};
}

// What a sampling loop reads besides the field groups, with its state kept between samples
// (sampler::ProfilingSampler holds one per GPU thread).
class NvmlProfilingReader final : public backend::ProfilingReader {
 public:
  explicit NvmlProfilingReader(const NvmlApi& api) : api_(api), gpm_(api), buffer_(api) {}

  void read(backend::DeviceHandle handle, core::DeviceSnapshot& device) override {
    const nvmlDevice_t dev = NvmlBackend::nvml_device(handle);
    if (device.state != core::DeviceState::Ok || dev == nullptr) {
      gpm_.reset();
      buffer_.reset();
      return;
    }
    if (buffer_.read(dev, device, std::chrono::system_clock::now()) == NVML_ERROR_GPU_IS_LOST ||
        read_mig_devices(api_, dev, device.mig_devices) == NVML_ERROR_GPU_IS_LOST ||
        gpm_.read_device(dev, device) == NVML_ERROR_GPU_IS_LOST) {
      gpm_.reset();
      return;
    }
    gpm_.read_gpu_instances(dev, device);
  }

  void read_sample_buffer(backend::DeviceHandle handle, core::DeviceSnapshot& device,
                          std::chrono::system_clock::time_point at) override {
    const nvmlDevice_t dev = NvmlBackend::nvml_device(handle);
    if (device.state != core::DeviceState::Ok || dev == nullptr) return buffer_.reset();
    static_cast<void>(buffer_.read(dev, device, at));
  }

 private:
  const NvmlApi& api_;
  GpmReader gpm_;
  SampleBufferReader buffer_;
};

}  // namespace

NvmlBackend::NvmlBackend(std::unique_ptr<NvmlLibrary> library)
    : library_(std::move(library)), api_(library_->api()), sim_clock_(library_->sim_clock_setter()) {}

NvmlBackend::NvmlBackend(NvmlFunctions functions) : api_(functions) {}

std::string NvmlBackend::describe() const { return library_ ? library_->path() : std::string("NVML"); }

core::ReadError NvmlBackend::checked(nvmlReturn_t rc) const {
  if (rc != NVML_SUCCESS) last_failure_.store(static_cast<int>(rc), std::memory_order_relaxed);
  return error_from_nvml(rc);
}

core::ReadError NvmlBackend::device_count(unsigned* count) const { return checked(api_.device_count(count)); }

core::ReadError NvmlBackend::handle_by_index(unsigned index, backend::DeviceHandle* handle) const {
  nvmlDevice_t dev = nullptr;
  const nvmlReturn_t rc = api_.handle_by_index(index, &dev);
  *handle = rc == NVML_SUCCESS ? handle_of(this, dev) : backend::DeviceHandle{};
  return checked(rc);
}

core::ReadError NvmlBackend::read_source(backend::DeviceHandle dev, core::Source source,
                                         std::span<const core::FieldId> fields, core::DeviceSnapshot& device) const {
  if (source == core::Source::NvlinkThroughput) {  // rates: the previous counters are kept here
    const auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch()).count();
    return checked(nvlink_.read(api_, nvml_device(dev), fields, device, static_cast<long long>(now_us)));
  }
  return checked(nvml::read_source(api_, nvml_device(dev), source, fields, device));
}

core::ReadError NvmlBackend::read_processes(backend::DeviceHandle dev, unsigned long long* utilization_since_us,
                                            core::DeviceSnapshot& device) const {
  return checked(nvml::read_processes(api_, nvml_device(dev), utilization_since_us, device));
}

core::ReadError NvmlBackend::driver_version(std::string& out) const {
  char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  const nvmlReturn_t rc = GW_NVML_CALL(api_.raw(), nvmlSystemGetDriverVersion, buf, static_cast<unsigned>(sizeof buf));
  if (rc != NVML_SUCCESS) {
    static_cast<void>(checked(rc));
    return error_from_nvml(NVML_ERROR_UNKNOWN);
  }
  out = buf;
  return {};
}

core::ReadError NvmlBackend::cuda_driver_version(int* version) const { return checked(api_.cuda_driver_version(version)); }

std::string NvmlBackend::error_text(core::ReadError error) const {
  return api_.error_string(static_cast<nvmlReturn_t>(error.vendor_code));
}

core::ReadError NvmlBackend::error_of(core::ErrorReason reason) const {
  using R = core::ErrorReason;
  switch (reason) {
    case R::None: return {};
    case R::NotSupported: return error_from_nvml(NVML_ERROR_NOT_SUPPORTED);
    case R::Deprecated: return error_from_nvml(NVML_ERROR_DEPRECATED);
    case R::NoPermission: return error_from_nvml(NVML_ERROR_NO_PERMISSION);
    case R::FunctionMissing: return error_from_nvml(NVML_ERROR_FUNCTION_NOT_FOUND);
    case R::GpuLost: return error_from_nvml(NVML_ERROR_GPU_IS_LOST);
    case R::Timeout: return error_from_nvml(NVML_ERROR_TIMEOUT);
    case R::NotFound: return error_from_nvml(NVML_ERROR_NOT_FOUND);
    case R::Uninitialized: return error_from_nvml(NVML_ERROR_UNINITIALIZED);
    case R::DriverNotLoaded: return error_from_nvml(NVML_ERROR_DRIVER_NOT_LOADED);
    case R::DriverMismatch: return error_from_nvml(NVML_ERROR_LIB_RM_VERSION_MISMATCH);
    case R::InsufficientSize: return error_from_nvml(NVML_ERROR_INSUFFICIENT_SIZE);
    case R::Other: break;
  }
  return error_from_nvml(NVML_ERROR_UNKNOWN);
}

core::ReadError NvmlBackend::last_error() const {
  return error_from_nvml(static_cast<nvmlReturn_t>(last_failure_.load(std::memory_order_relaxed)));
}

std::unique_ptr<backend::ProfilingReader> NvmlBackend::profiling_reader(unsigned /*index*/) const {
  return std::make_unique<NvmlProfilingReader>(api_);
}

std::unique_ptr<backend::EventSource> NvmlBackend::open_events(unsigned gpu_count) const {
  return std::make_unique<XidEventSet>(api_, gpu_count);
}

bool NvmlBackend::set_sim_clock(long long unix_ms) const {
  if (sim_clock_ == nullptr) return false;
  sim_clock_(unix_ms);
  return true;
}

bool NvmlBackend::has_sim_clock() const { return sim_clock_ != nullptr; }

std::optional<double> NvmlBackend::sim_time_scale() const {
  return library_ ? library_->sim_time_scale() : std::nullopt;
}

core::Result<std::unique_ptr<backend::DeviceBackend>> open_backend(const backend::OpenOptions& options) {
  auto library = NvmlLibrary::open(options.nvidia_library);
  if (!library) return core::make_error(library.error().message, library.error().code);
  return std::unique_ptr<backend::DeviceBackend>(std::make_unique<NvmlBackend>(std::move(*library)));
}

}  // namespace gpuwatch::nvml
