#pragma once
// dcgm-exporter's names and labels (`serve --metrics-compat dcgm`), so dashboards built
// for it work unchanged. Rows: exporter/dcgm_compat.def. Labels as dcgm-exporter:
// gpu, UUID, device ("nvidia<minor>"), modelName, Hostname, pci_bus_id, DCGM_FI_DRIVER_VERSION.
// Not covered: Xid errors, NVLink error counters, vGPU licence (NVLink throughput is: DCGM_FI_PROF_NVLINK_TX/RX_BYTES,
// rates between two samples). DCGM_FI_PROF_* activity ratios come from NVML GPM
// (Hopper and later; absent elsewhere).
#include <string>
#include <string_view>
#include <vector>

#include "core/field.hpp"
#include "exporter/metric_list.hpp"
#include "exporter/prometheus_encoder.hpp"

namespace gpuwatch::exporter {

struct DcgmMetric {
  std::string_view name;  // "DCGM_FI_DEV_GPU_UTIL"
  core::FieldId field;
  MetricType type;
  double scale;           // exported = base-unit value * scale
  std::string_view help;
};

const std::vector<DcgmMetric>& dcgm_metrics();

// Appends the DCGM_FI_* families for the GPUs that are up.
void encode_dcgm_compat(const live::LiveView& view, const EncodeOptions& options, std::string& out);

}  // namespace gpuwatch::exporter
