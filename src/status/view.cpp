#include "status/view.hpp"

namespace gpuwatch::status {

const std::vector<core::FieldId>& status_fields() {
  using core::FieldId;
  static const std::vector<FieldId> fields = {
      FieldId::Name,           FieldId::Uuid,
      FieldId::PciBusId,       FieldId::TemperatureGpu,
      FieldId::TemperatureMemory, FieldId::FanSpeed,
      FieldId::UtilizationGpu, FieldId::UtilizationMemory,
      FieldId::UtilizationEncoder, FieldId::UtilizationDecoder,
      FieldId::MemoryTotal,    FieldId::MemoryReserved, FieldId::MemoryUsed,
      FieldId::MemoryFree,     FieldId::PowerDraw,
      FieldId::EnforcedPowerLimit, FieldId::ClocksCurrentSm,
      FieldId::ClocksCurrentMemory, FieldId::Pstate,
  };
  return fields;
}

}  // namespace gpuwatch::status
