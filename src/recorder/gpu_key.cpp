#include "recorder/gpu_key.hpp"

namespace gpuwatch::recorder {

std::string history_gpu_key(const core::DeviceSnapshot& device) {
  if (auto uuid = device.get(core::FieldId::Uuid).as_string()) return *uuid;
  if (auto bus = device.get(core::FieldId::PciBusId).as_string()) return "pci:" + *bus;
  return "index:" + std::to_string(device.index);
}

}  // namespace gpuwatch::recorder
