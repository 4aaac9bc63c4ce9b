#pragma once
// What a sampling loop reads besides the Sampler's fields, and that needs state kept between
// samples: GPM activity (the GPU's and each MIG GPU instance's, over the window since the
// previous sample), the MIG devices and the driver's utilization sample buffer since the
// previous sample (sub-second idle gaps), all through the backend's ProfilingReader
// (backend/device_backend.hpp). Used by the live collector, one per GPU thread, right after
// Sampler::sample_into.
#include <memory>

#include "backend/device_backend.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::sampler {

class ProfilingSampler {
 public:
  // For device INDEX (global) of BACKEND.
  ProfilingSampler(const backend::DeviceBackend& backend, unsigned index) : reader_(backend.profiling_reader(index)) {}

  // Completes DEVICE (just sampled through handle DEV: Sampler::handle_of): the Source::Gpm
  // and Source::SampleBuffer fields, mig_devices and gpu_instance_activity. A device that is not Ok (or has no
  // handle) gets none of them, and its GPM windows start over once it answers again.
  void sample(core::DeviceSnapshot& device, backend::DeviceHandle dev);

 private:
  std::unique_ptr<backend::ProfilingReader> reader_;
};

}  // namespace gpuwatch::sampler
