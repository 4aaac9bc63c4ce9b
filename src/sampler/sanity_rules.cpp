#include "sampler/sanity_rules.hpp"

namespace gpuwatch::sampler {

void apply_sanity_rules(core::DeviceSnapshot& device) {
  using core::FieldId;
  const auto not_applicable = core::FieldReading::absent(core::FieldStatus::NotApplicable);
  auto total = device.get(FieldId::MemoryTotal).as_uint();
  if (!total) return;
  if (*total == 0) {
    for (auto f : {FieldId::MemoryTotal, FieldId::MemoryUsed, FieldId::MemoryFree, FieldId::MemoryReserved}) {
      if (device.get(f).ok()) device.get(f) = not_applicable;
    }
    return;
  }
  for (auto f : {FieldId::MemoryUsed, FieldId::MemoryReserved, FieldId::MemoryFree}) {
    auto v = device.get(f).as_uint();
    if (v && *v > *total) device.get(f) = not_applicable;
  }
  for (auto& p : device.processes) {
    if (p.used_memory_bytes && *p.used_memory_bytes > *total) p.used_memory_bytes.reset();
  }
}

}  // namespace gpuwatch::sampler
