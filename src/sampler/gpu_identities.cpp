#include "sampler/gpu_identities.hpp"

#include "sampler/deadline_sampler.hpp"

namespace gpuwatch::sampler {

core::Snapshot gpu_identities(const backend::DeviceBackend& backend, std::chrono::milliseconds deadline) {
  SampleOptions options;
  options.fields = {core::FieldId::Uuid};
  return DeadlineSampler(backend, deadline).sample(options);
}

}  // namespace gpuwatch::sampler
