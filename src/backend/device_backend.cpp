#include "backend/device_backend.hpp"

#include <array>

namespace gpuwatch::backend {

std::vector<DeviceEvent> EventSource::drain(std::size_t max) {
  std::vector<DeviceEvent> out;
  DeviceEvent event;
  while (out.size() < max) {
    const Wait got = wait(0, event);
    if (got == Wait::Skipped) continue;
    if (got != Wait::Event) break;
    out.push_back(event);
  }
  return out;
}

StaticInfo DeviceBackend::static_info(unsigned index) const {
  StaticInfo info;
  DeviceHandle dev;
  if (!handle_by_index(index, &dev).ok()) return info;
  core::DeviceSnapshot device;
  const std::array<std::pair<core::Source, core::FieldId>, 3> reads{{{core::Source::Name, core::FieldId::Name},
                                                                     {core::Source::Uuid, core::FieldId::Uuid},
                                                                     {core::Source::PciInfo, core::FieldId::PciBusId}}};
  for (const auto& [source, field] : reads) {
    const core::FieldId one[] = {field};
    static_cast<void>(read_source(dev, source, one, device));
  }
  info.name = device.get(core::FieldId::Name).as_string();
  info.uuid = device.get(core::FieldId::Uuid).as_string();
  info.pci_bus_id = device.get(core::FieldId::PciBusId).as_string();
  return info;
}

}  // namespace gpuwatch::backend
