#include "store/rollup_counts.hpp"

#include <fmt/core.h>

#include "store/migrations.hpp"

namespace gpuwatch::store {
namespace {

// "present in every sample of the row, or in none": then `samples` is the count.
std::string all_or_none(const std::string& column) {
  return "CASE WHEN " + column + "_avg IS NULL THEN 0 ELSE samples END";
}

std::vector<RollupCount> make_counts() {
  const std::string idle = fmt::format("{}", kIdleBelowPercent);
  std::vector<RollupCount> counts = {
      {"utilization_gpu_percent_samples", "count(utilization_gpu_percent)", all_or_none("utilization_gpu_percent")},
      {"utilization_gpu_idle_samples", "count(CASE WHEN utilization_gpu_percent < " + idle + " THEN 1 END)",
       "CASE WHEN utilization_gpu_percent_avg IS NULL THEN 0 WHEN utilization_gpu_percent_max < " + idle +
           " THEN samples WHEN utilization_gpu_percent_min >= " + idle + " THEN 0 END"},
      {"power_draw_mw_samples", "count(power_draw_mw)", all_or_none("power_draw_mw")},
      {"clocks_event_reasons_active_samples", "count(clocks_event_reasons_active)",
       // A v2 row tells the mask only when it did not change inside the bucket.
       "CASE WHEN clocks_event_reasons_active_avg IS NULL THEN 0 "
       "WHEN clocks_event_reasons_active_min = clocks_event_reasons_active_max THEN samples END"},
  };
  for (const auto& reason : throttle_reasons()) {
    const std::string bit = std::to_string(reason.bit);
    counts.push_back({throttle_samples_column(reason),
                      "count(CASE WHEN clocks_event_reasons_active & " + bit + " THEN 1 END)",
                      "CASE WHEN clocks_event_reasons_active_avg IS NULL THEN 0 "
                      "WHEN clocks_event_reasons_active_min = clocks_event_reasons_active_max THEN "
                      "(CASE WHEN CAST(clocks_event_reasons_active_min AS INTEGER) & " + bit +
                          " THEN samples ELSE 0 END) END"});
  }
  return counts;
}

}  // namespace

const std::vector<ThrottleReason>& throttle_reasons() {
  static const std::vector<ThrottleReason> reasons = {
      {0x1, "gpu_idle"},
      {0x2, "applications_clocks_setting"},
      {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},
      {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clock_setting"},
  };
  return reasons;
}

std::string throttle_samples_column(const ThrottleReason& reason) {
  return std::string("throttle_") + reason.name + "_samples";
}

const std::vector<RollupCount>& rollup_counts() {
  static const std::vector<RollupCount> counts = make_counts();
  return counts;
}

std::string schema_v3_sql() {
  std::string sql;
  for (const auto& table : rollup_tables()) {
    std::string backfill;
    for (const auto& count : rollup_counts()) {
      sql += "ALTER TABLE " + table + " ADD COLUMN " + count.name + " INTEGER;\n";
      backfill += (backfill.empty() ? "" : ", ") + count.name + " = " + count.backfill;
    }
    for (const char* column : {kEnergyFirstColumn, kEnergyLastColumn, kEnergyIncreaseColumn}) {
      sql += "ALTER TABLE " + table + " ADD COLUMN " + column + " REAL;\n";
    }
    backfill += std::string(", ") + kEnergyFirstColumn + " = energy_total_mj_min, " + kEnergyLastColumn +
                " = energy_total_mj_max, " + kEnergyIncreaseColumn + " = energy_total_mj_max - energy_total_mj_min";
    sql += "UPDATE " + table + " SET " + backfill + ";\n";
  }
  return sql;
}

}  // namespace gpuwatch::store
