#pragma once
// What a sampling loop reads besides the Sampler's fields, and that needs state kept between
// samples: NVML GPM activity (the GPU's and each MIG GPU instance's, over the window since
// the previous sample), the MIG devices and the driver's utilization sample buffer since the
// previous sample (nvml::SampleBufferReader: sub-second idle gaps). Used by the exporter's collector, one per GPU
// thread, right after Sampler::sample_into.
#include "core/snapshot.hpp"
#include "nvml/gpm_reader.hpp"
#include "nvml/nvml_api.hpp"
#include "nvml/sample_buffer_reader.hpp"

namespace gpuwatch::sampler {

class ProfilingSampler {
 public:
  explicit ProfilingSampler(const nvml::NvmlApi& api) : api_(api), gpm_(api), buffer_(api) {}

  // Completes DEVICE (just sampled through handle DEV: Sampler::handle_of): the Source::Gpm
  // and Source::SampleBuffer fields, mig_devices and gpu_instance_activity. A device that is not Ok (or has no
  // handle) gets none of them, and its GPM windows start over once it answers again.
  void sample(core::DeviceSnapshot& device, nvmlDevice_t dev);

 private:
  const nvml::NvmlApi& api_;
  nvml::GpmReader gpm_;
  nvml::SampleBufferReader buffer_;
};

}  // namespace gpuwatch::sampler
