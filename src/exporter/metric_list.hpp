#pragma once
// The native gpuwatch_* metric families, derived from the field table. One table of
// truth: which fields are exported is exporter/metric_list.def; names, units and help
// text come from the field's row (core/field_list.def).
//
// Naming rule (Prometheus conventions, base units): "gpuwatch_" + the field's JSON key
// with its unit suffix spelled out:
//   _c -> _celsius, _w -> _watts, _hz -> _hertz, _j -> _joules, _s -> _seconds,
//   _bytes_per_s -> _bytes_per_second; _bytes and _ratio stay.
// Counters end in _total (a trailing "_total"/"_counter" in the key is folded into it):
//   energy_total_j -> gpuwatch_energy_joules_total,
//   ecc_errors_corrected_volatile_total -> gpuwatch_ecc_errors_corrected_volatile_total.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/field.hpp"
#include "core/field_table.hpp"

namespace gpuwatch::exporter {

enum class MetricType : std::uint8_t { Gauge, Counter };
const char* to_string(MetricType type);  // "gauge", "counter"

struct MetricSpec {
  core::FieldId field;
  MetricType type;
  std::string name;  // "gpuwatch_memory_used_bytes"
  std::string help;  // the field's description plus its query name
};

struct InfoLabel {
  core::FieldId field;
  std::string_view label;  // label name on gpuwatch_gpu_info
};

// Every exported field, in metric_list.def order.
const std::vector<MetricSpec>& metric_specs();
// The labels of gpuwatch_gpu_info besides gpu, uuid and driver_version.
const std::vector<InfoLabel>& info_labels();
// nullptr when the field is not exported.
const MetricSpec* find_metric(core::FieldId field);

// The name a field gets under the naming rule above.
std::string metric_name(const core::FieldInfo& info, MetricType type);

// Every field the exporter may need read (metrics, info labels, identity, and the
// nvidia-smi family's): the keys of /api/v1/snapshot, whatever families are on.
std::vector<core::FieldId> exported_fields();
// The fields the collector samples: the native and dcgm families' always, the nvidia-smi
// family's extras (compute_mode, pci.sub_device_id, throttle-reason flags...) only when
// that family is on. A field not sampled reads as null in the JSON snapshot, never 0.
std::vector<core::FieldId> collected_fields(bool compat_nvidia_smi);

}  // namespace gpuwatch::exporter
