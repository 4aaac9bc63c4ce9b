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
      // issue 9 (added at the end: JSON gains keys, keeps its order)
      FieldId::ClocksMaxSm,    FieldId::ClocksEventReasonsActive,
      FieldId::TemperatureGpuSlowdown, FieldId::PcieRxThroughput,
      FieldId::PcieTxThroughput,
      // issue 25: NVLink throughput (rates between two samples: null in a one-shot status)
      FieldId::NvlinkTxThroughput, FieldId::NvlinkRxThroughput,
  };
  return fields;
}

}  // namespace gpuwatch::status
