#include "diagnose/input_fields.hpp"

#include <algorithm>

namespace gpuwatch::diagnose {

const std::vector<core::FieldId>& input_fields() {
  using F = core::FieldId;
  static const std::vector<F> fields = {
      F::Uuid, F::UtilizationGpu, F::UtilizationMemory, F::MemoryUsed, F::MemoryTotal, F::TemperatureGpu,
      F::TemperatureGpuSlowdown, F::PowerDraw, F::PowerDrawAverage, F::PowerDrawInstant, F::PowerLimit,
      F::EnforcedPowerLimit, F::PowerDefaultLimit, F::ClocksCurrentGraphics, F::ClocksCurrentSm, F::ClocksMaxGraphics,
      F::ClocksMaxSm, F::ClocksEventReasonsActive, F::ClocksEventReasonsCountersHwPowerBrakeSlowdown,
      F::ClocksEventReasonsCountersHwThermalSlowdown, F::ClocksEventReasonsCountersSwPowerCap,
      F::ClocksEventReasonsCountersSwThermalSlowdown, F::ClocksEventReasonsCountersSyncBoost,
      F::EccErrorsUncorrectedAggregateTotal, F::EccErrorsUncorrectedVolatileTotal, F::GpuRecoveryAction,
      F::PcieLinkGenCurrent, F::PcieLinkGenMax, F::PcieLinkWidthCurrent, F::PcieLinkWidthMax,
      F::RemappedRowsCorrectable, F::RemappedRowsFailure, F::RemappedRowsPending, F::RemappedRowsUncorrectable,
      F::GpmSmActive, F::UtilizationGpuIdleShare, F::UtilizationGpuIdleGaps, F::PersistenceMode,
      F::NvlinkTxThroughput, F::NvlinkRxThroughput};
  return fields;
}

std::vector<core::FieldId> with_input_fields(std::vector<core::FieldId> fields) {
  for (auto f : input_fields()) {
    if (std::find(fields.begin(), fields.end(), f) == fields.end()) fields.push_back(f);
  }
  return fields;
}

}  // namespace gpuwatch::diagnose
