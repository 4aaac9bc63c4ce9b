#pragma once
// nvidia_gpu_exporter's names and labels (`serve --metrics-compat nvidia-smi`), so the
// dashboards built for it work unchanged. Rows: exporter/nvidia_smi_compat.def.
//
// Naming rule (that exporter's): "nvidia_smi_" + the nvidia-smi query name with '.' -> '_',
// then a unit suffix from the field's unit: bytes "_bytes", ratio "_ratio", watts "_watts",
// hertz "_clock_hz", seconds "_seconds"; celsius and unitless fields have none
// (memory.used -> nvidia_smi_memory_used_bytes, clocks.current.sm ->
// nvidia_smi_clocks_current_sm_clock_hz, temperature.gpu -> nvidia_smi_temperature_gpu).
// Values in base units; flags (Enabled/Active) 1/0; pstate the P number.
//
// Labels: every per-GPU series has only `uuid`, nvidia_gpu_exporter style: the UUID without
// its "GPU-" prefix, lower case. nvidia_smi_gpu_info{uuid,name,index,driver_version,
// vbios_version,pci_bus_id,serial,compute_cap,pci_sub_device_id,cuda_version} carries the rest.
// Per process: nvidia_smi_compute_app_info / _used_memory_bytes{uuid,pid,process_name}.
// Xid events: nvidia_smi_xid_errors_total / _last_timestamp_seconds{uuid,xid} (xid_metrics.hpp).
#include <string>
#include <string_view>
#include <vector>

#include "core/field.hpp"
#include "core/field_table.hpp"
#include "exporter/metric_list.hpp"
#include "live/view.hpp"

namespace gpuwatch::exporter {

struct NvidiaSmiMetric {
  core::FieldId field;
  MetricType type;
  std::string name;  // "nvidia_smi_memory_used_bytes"
  std::string help;
};

// Every row of nvidia_smi_compat.def, in order.
const std::vector<NvidiaSmiMetric>& nvidia_smi_metrics();
// The name a field gets under the naming rule above.
std::string nvidia_smi_metric_name(const core::FieldInfo& info);
// "GPU-6F0A..." -> "6f0a...": nvidia_gpu_exporter's uuid label.
std::string nvidia_smi_uuid(std::string_view uuid);
// Fields the family needs read (metrics and gpu_info labels), for the collector.
std::vector<core::FieldId> nvidia_smi_fields();

// Appends the nvidia_smi_* families (GPUs that are up; gpu_info for every sampled GPU).
void encode_nvidia_smi_compat(const live::LiveView& view, std::string& out);

}  // namespace gpuwatch::exporter
