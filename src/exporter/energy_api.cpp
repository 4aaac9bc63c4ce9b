#include "exporter/energy_api.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/field_table.hpp"
#include "core/json_text.hpp"
#include "jobs/device_stats.hpp"  // throttle_reasons()

namespace gpuwatch::exporter {
namespace {

// The position of FIELD in live::kHistoryFields.
constexpr std::size_t energy_api_column(core::FieldId field) {
  for (std::size_t f = 0; f < live::kHistoryFields.size(); ++f) {
    if (live::kHistoryFields[f] == field) return f;
  }
  return live::kHistoryFields.size();
}

std::optional<double> energy_api_value(const live::HistoryRow& row, core::FieldId field) {
  const double v = row.values[energy_api_column(field)];
  if (std::isnan(v)) return std::nullopt;
  return v;
}

// The mask bits of the throttle reasons (the field table's bit of each reason's "active" field).
std::uint64_t energy_api_throttle_mask() {
  std::uint64_t mask = 0;
  for (const auto& reason : jobs::throttle_reasons())
    mask |= static_cast<std::uint64_t>(core::field_info(reason.active).arg);
  return mask;
}

jobs::TimePoint energy_api_time(double unix_s) {
  return jobs::TimePoint(std::chrono::duration_cast<jobs::TimePoint::duration>(std::chrono::duration<double>(unix_s)));
}

nlohmann::json energy_api_or_null(std::optional<double> s) { return s ? nlohmann::json(*s) : nlohmann::json(); }

}  // namespace

jobs::EnergyPoint energy_point(const live::HistoryRow& row) {
  using core::FieldId;
  static const std::uint64_t mask = energy_api_throttle_mask();
  jobs::EnergyPoint p;
  p.at = energy_api_time(row.timestamp_s);
  p.counter_j = energy_api_value(row, FieldId::EnergyTotal);
  p.power_w = energy_api_value(row, FieldId::PowerDraw);
  p.utilization = energy_api_value(row, FieldId::UtilizationGpu);
  if (auto used = energy_api_value(row, FieldId::MemoryUsed); used && *used >= 0)
    p.memory_used_bytes = static_cast<std::uint64_t>(*used);
  if (auto reasons = energy_api_value(row, FieldId::ClocksEventReasonsActive); reasons && *reasons >= 0)
    p.throttled = (static_cast<std::uint64_t>(*reasons) & mask) != 0;
  return p;
}

std::map<unsigned, jobs::EnergyTimeline> energy_timelines(const std::vector<live::HistoryRow>& rows,
                                                           const std::vector<unsigned>& gpus) {
  std::map<unsigned, jobs::EnergyTimeline> out;
  for (unsigned g : gpus) out[g];
  for (const auto& row : rows) {
    auto found = out.find(row.gpu);
    if (found != out.end()) jobs::add_point(found->second, energy_point(row));
  }
  return out;
}

std::string energy_api_json(const std::vector<live::HistoryRow>& rows, const std::vector<unsigned>& gpus,
                            const EnergyWindow& window, const HistoryOrigin& origin, const jobs::EnergyRates& rates,
                            const jobs::HourOf& hour_of) {
  const auto timelines = energy_timelines(rows, gpus);
  std::vector<jobs::GpuTimeline> per_gpu;
  for (const auto& [index, timeline] : timelines) per_gpu.push_back({index, &timeline});
  const jobs::EnergyReport report = jobs::energy_report(per_gpu, {}, {}, rates, hour_of, window.interval_s);

  std::optional<double> first, last;
  for (const auto& row : rows) {
    if (std::find(gpus.begin(), gpus.end(), row.gpu) == gpus.end()) continue;
    first = std::min(first.value_or(row.timestamp_s), row.timestamp_s);
    last = std::max(last.value_or(row.timestamp_s), row.timestamp_s);
  }
  // Without ?seconds=: the window is what the rows cover (until now).
  const double since = window.seconds ? window.until_s - *window.seconds : first.value_or(window.until_s);

  nlohmann::json out;
  out["range"] = {{"seconds", energy_api_or_null(window.seconds)},
                  {"since_s", since},
                  {"until_s", window.until_s},
                  {"first_sample_s", energy_api_or_null(first)},
                  {"last_sample_s", energy_api_or_null(last)}};
  nlohmann::json source = {{"source", std::string(origin.source)}, {"resolution_s", energy_api_or_null(origin.resolution_s)}};
  if (origin.store_error) source["store_error"] = *origin.store_error;
  out["origin"] = std::move(source);
  nlohmann::json energy = jobs::energy_report_json(report);
  if (energy.is_object() && energy.contains("waste")) {
    // Findings are not replayed for a window: not computed is null, never 0.
    energy["waste"]["finding_active_joules"] = nullptr;
    energy["waste"]["finding_active_share"] = nullptr;
  }
  out["energy"] = std::move(energy);
  out["findings_considered"] = false;
  return core::json_text(out);
}

}  // namespace gpuwatch::exporter
