#include "exporter/metric_list.hpp"

#include <algorithm>

#include "exporter/nvidia_smi_compat.hpp"

namespace gpuwatch::exporter {
namespace {

// The JSON key's unit suffix and the Prometheus one that replaces it.
struct UnitSuffix {
  std::string_view json;
  std::string_view prometheus;
};

UnitSuffix unit_suffix(core::Unit unit) {
  switch (unit) {
    case core::Unit::Bytes: return {"_bytes", "_bytes"};
    case core::Unit::Ratio: return {"_ratio", "_ratio"};
    case core::Unit::Celsius: return {"_c", "_celsius"};
    case core::Unit::Watts: return {"_w", "_watts"};
    case core::Unit::Hertz: return {"_hz", "_hertz"};
    case core::Unit::Joules: return {"_j", "_joules"};
    case core::Unit::Seconds: return {"_s", "_seconds"};
    case core::Unit::BytesPerSecond: return {"_bytes_per_s", "_bytes_per_second"};
    case core::Unit::None: break;
  }
  return {"", ""};
}

std::string make_help(const core::FieldInfo& info) {
  std::string help(info.description);
  help += " (query field ";
  help += info.name;
  help += ")";
  return help;
}

}  // namespace

const char* to_string(MetricType type) { return type == MetricType::Counter ? "counter" : "gauge"; }

std::string metric_name(const core::FieldInfo& info, MetricType type) {
  std::string_view stem = info.json_key;
  UnitSuffix suffix = unit_suffix(info.unit);
  if (!suffix.json.empty() && stem.ends_with(suffix.json)) stem.remove_suffix(suffix.json.size());
  if (type == MetricType::Counter) {
    for (std::string_view folded : {std::string_view("_total"), std::string_view("_counter")}) {
      if (stem.ends_with(folded)) {
        stem.remove_suffix(folded.size());
        break;
      }
    }
  }
  std::string name = "gpuwatch_";
  name += stem;
  name += suffix.prometheus;
  if (type == MetricType::Counter) name += "_total";
  return name;
}

const std::vector<MetricSpec>& metric_specs() {
  static const std::vector<MetricSpec> specs = [] {
    std::vector<MetricSpec> list;
    auto add = [&list](const core::FieldInfo& info, MetricType type) {
      list.push_back(MetricSpec{info.id, type, metric_name(info, type), make_help(info)});
    };
#define GW_METRIC(field_id, metric_type) \
  add(core::field_info(core::FieldId::field_id), MetricType::metric_type);
#define GW_INFO_LABEL(field_id, label)
#include "exporter/metric_list.def"
#undef GW_METRIC
#undef GW_INFO_LABEL
    return list;
  }();
  return specs;
}

const std::vector<InfoLabel>& info_labels() {
  static const std::vector<InfoLabel> labels = {
#define GW_METRIC(field_id, metric_type)
#define GW_INFO_LABEL(field_id, label) InfoLabel{core::FieldId::field_id, label},
#include "exporter/metric_list.def"
#undef GW_METRIC
#undef GW_INFO_LABEL
  };
  return labels;
}

const MetricSpec* find_metric(core::FieldId field) {
  for (const auto& spec : metric_specs()) {
    if (spec.field == field) return &spec;
  }
  return nullptr;
}

std::vector<core::FieldId> exported_fields() { return collected_fields(true); }

std::vector<core::FieldId> collected_fields(bool compat_nvidia_smi) {
  std::vector<core::FieldId> fields = {core::FieldId::Index, core::FieldId::Uuid, core::FieldId::DriverVersion,
                                      core::FieldId::MinorNumber};  // MinorNumber: dcgm's device label
  auto add = [&](core::FieldId f) {
    if (std::find(fields.begin(), fields.end(), f) == fields.end()) fields.push_back(f);
  };
  for (const auto& label : info_labels()) add(label.field);
  for (const auto& spec : metric_specs()) add(spec.field);
  if (compat_nvidia_smi) {
    for (core::FieldId f : nvidia_smi_fields()) add(f);  // --metrics-compat nvidia-smi
  }
  return fields;
}

}  // namespace gpuwatch::exporter
