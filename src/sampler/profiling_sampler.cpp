#include "sampler/profiling_sampler.hpp"

#include "nvml/mig_reader.hpp"

namespace gpuwatch::sampler {

void ProfilingSampler::sample(core::DeviceSnapshot& device, nvmlDevice_t dev) {
  device.mig_devices.clear();
  device.gpu_instance_activity.clear();
  if (device.state != core::DeviceState::Ok || dev == nullptr) {
    gpm_.reset();
    buffer_.reset();
    return;
  }
  if (buffer_.read(dev, device, std::chrono::system_clock::now()) == NVML_ERROR_GPU_IS_LOST) {
    gpm_.reset();
    return;
  }
  if (nvml::read_mig_devices(api_, dev, device.mig_devices) == NVML_ERROR_GPU_IS_LOST) {
    gpm_.reset();
    return;
  }
  if (gpm_.read_device(dev, device) == NVML_ERROR_GPU_IS_LOST) {
    gpm_.reset();
    return;
  }
  gpm_.read_gpu_instances(dev, device);
}

}  // namespace gpuwatch::sampler
