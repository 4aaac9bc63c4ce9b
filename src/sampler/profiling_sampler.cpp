#include "sampler/profiling_sampler.hpp"

namespace gpuwatch::sampler {

void ProfilingSampler::sample(core::DeviceSnapshot& device, backend::DeviceHandle dev) {
  device.mig_devices.clear();
  device.gpu_instance_activity.clear();
  if (reader_) reader_->read(dev, device);
}

}  // namespace gpuwatch::sampler
