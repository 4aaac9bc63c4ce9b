#include "sampler/gpu_identities.hpp"

#include "sampler/deadline_sampler.hpp"

namespace gpuwatch::sampler {

core::Snapshot gpu_identities(const nvml::NvmlApi& api, std::chrono::milliseconds deadline) {
  SampleOptions options;
  options.fields = {core::FieldId::Uuid};
  return DeadlineSampler(api, deadline).sample(options);
}

}  // namespace gpuwatch::sampler
