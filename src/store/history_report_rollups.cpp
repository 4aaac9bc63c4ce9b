// `report` over the rollup tables (store/history_report_scan.hpp): one row per GPU per
// minute / hour, weighted by the samples it holds.
#include <algorithm>
#include <string>

#include "store/history_report_scan.hpp"

namespace gpuwatch::store::report_detail {
namespace {

std::string rollup_select(Source source, const TimeFilter& filter) {
  std::string sql =
      "SELECT gpu_id, time_ms, samples, utilization_gpu_percent_avg, utilization_gpu_percent_samples, "
      "utilization_gpu_idle_samples, memory_used_bytes_max, memory_total_bytes_max, power_draw_mw_avg, "
      "power_draw_mw_max, power_draw_mw_samples, temperature_gpu_c_max, clocks_event_reasons_active_samples, " +
      std::string(kEnergyFirstColumn) + ", " + kEnergyLastColumn + ", " + kEnergyIncreaseColumn;
  for (const auto& reason : throttle_reasons()) sql += ", " + throttle_samples_column(reason);
  sql += ", clocks_current_sm_mhz_avg, clocks_max_sm_mhz_max";  // after the reasons: see sm_clock_column()
  return sql + " FROM " + kTables[source] + filter.sql() + " ORDER BY time_ms, gpu_id";
}

constexpr int kFirstReasonColumn = 16;

// The SM clock columns come after the throttle reasons.
int sm_clock_column() { return kFirstReasonColumn + static_cast<int>(throttle_reasons().size()); }

// The largest count among the reasons with one of BITS: a lower bound of the samples with any
// of them (a rollup keeps no union).
std::int64_t largest_reason_count(const std::vector<std::int64_t>& counts, std::uint64_t bits) {
  std::int64_t largest = 0;
  const auto& reasons = throttle_reasons();
  for (std::size_t r = 0; r < reasons.size(); ++r) {
    if (reasons[r].bit & bits) largest = std::max(largest, counts[r]);
  }
  return largest;
}

}  // namespace

std::string TimeFilter::sql() const {
  std::string sql = " WHERE 1";
  if (since_ms) sql += " AND time_ms >= :since";
  if (until_ms) sql += " AND time_ms <= :until";
  return sql;
}

void TimeFilter::bind(SQLite::Statement& statement) const {
  if (since_ms) statement.bind(":since", static_cast<std::int64_t>(*since_ms));
  if (until_ms) statement.bind(":until", static_cast<std::int64_t>(*until_ms));
}

void CounterEnergy::add(double first_mj, double last, double increase, std::int64_t run_readings) {
  if (last_mj && first_mj > *last_mj) increase_mj += first_mj - *last_mj;
  increase_mj += increase;
  last_mj = last;
  readings += run_readings;
}

Accumulator::Accumulator() {
  for (auto& counts : reason_counts) counts.assign(throttle_reasons().size(), 0);
}

ChartBucket* Accumulator::add_samples(std::int64_t time_ms, std::int64_t count, const ChartGrid& grid) {
  if (samples == 0) first_ms = time_ms;
  last_ms = time_ms;
  samples += count;
  if (grid.width_ms <= 0) return nullptr;
  const std::int64_t index = (time_ms - grid.first_ms) / grid.width_ms;
  if (index != current_bucket_index) {
    current_bucket = &buckets[index];
    current_bucket_index = index;
  }
  return current_bucket;
}

void keep_max(std::optional<double>& current, double value) {
  if (!current || value > *current) current = value;
}

void scan_rollups(const HistoryDatabase& db, Source source, const TimeFilter& filter, const ChartGrid& grid,
                  std::map<std::int64_t, Accumulator>& out) {
  SQLite::Statement select(db.sql(), rollup_select(source, filter));
  filter.bind(select);
  const auto& reasons = throttle_reasons();
  const auto bucket_ms = static_cast<double>(kBucketMs[source]);
  while (select.executeStep()) {
    Accumulator& a = out[select.getColumn(0).getInt64()];
    const std::int64_t samples = select.getColumn(2).getInt64();
    if (samples <= 0) continue;
    ChartBucket* b = a.add_samples(select.getColumn(1).getInt64(), samples, grid);
    a.rollup_samples += samples;
    a.per_sample_ms[source].push_back(bucket_ms / static_cast<double>(samples));
    auto count_or = [&](int column, std::int64_t fallback) {
      return select.getColumn(column).isNull() ? fallback : select.getColumn(column).getInt64();
    };
    if (!select.getColumn(3).isNull()) {
      const double u = select.getColumn(3).getDouble();
      const std::int64_t n = count_or(4, samples);
      a.utilization_sum += u * static_cast<double>(n);
      a.utilization_count += n;
      a.utilization_histogram[u] += n;  // the bucket's mean stands for its samples
      a.histogram_from_rollups = true;
      if (!select.getColumn(5).isNull()) {  // NULL: not known (a pre-v3 row)
        a.idle_count += select.getColumn(5).getInt64();
        a.idle_known += n;
      }
      if (b) {
        b->utilization_sum += u * static_cast<double>(n);
        b->utilization_count += n;
      }
    }
    if (!select.getColumn(6).isNull()) {
      keep_max(a.memory_used_max, select.getColumn(6).getDouble());
      if (b) keep_max(b->memory_max, select.getColumn(6).getDouble());
    }
    if (!select.getColumn(7).isNull()) keep_max(a.memory_total_max, select.getColumn(7).getDouble());
    if (!select.getColumn(8).isNull()) {
      const double mw = select.getColumn(8).getDouble();
      const std::int64_t n = count_or(10, samples);
      a.power_sum += mw * static_cast<double>(n);
      a.power_count += n;
      a.power_mw_samples[source] += mw * static_cast<double>(n);
      a.power_rollup_count[source] += n;
      if (b) {
        b->power_sum += mw * static_cast<double>(n);
        b->power_count += n;
      }
    }
    if (!select.getColumn(9).isNull()) keep_max(a.power_max, select.getColumn(9).getDouble());
    if (!select.getColumn(11).isNull()) {
      keep_max(a.temperature_max, select.getColumn(11).getDouble());
      if (b) keep_max(b->temperature_max, select.getColumn(11).getDouble());
    }
    if (!select.getColumn(12).isNull()) {  // NULL: not known; counts only when every reason is known
      bool all_known = true;
      for (std::size_t r = 0; r < reasons.size(); ++r) {
        all_known = all_known && !select.getColumn(kFirstReasonColumn + static_cast<int>(r)).isNull();
      }
      if (all_known) {
        const std::int64_t masked = select.getColumn(12).getInt64();
        a.mask_count[source] += masked;
        std::vector<std::int64_t> counts(reasons.size());
        for (std::size_t r = 0; r < reasons.size(); ++r) {
          counts[r] = select.getColumn(kFirstReasonColumn + static_cast<int>(r)).getInt64();
          a.reason_counts[source][r] += counts[r];
        }
        const std::int64_t held_back = largest_reason_count(counts, kHeldBackBits);
        a.thermal_count += largest_reason_count(counts, kThermalBits);
        a.power_capped_count += largest_reason_count(counts, kPowerBits);
        a.held_back_count += held_back;
        if (b) {
          b->mask_count += masked;
          b->held_back_count += held_back;
        }
      }
    }
    if (const SQLite::Column sm = select.getColumn(sm_clock_column()); !sm.isNull()) {
      a.sm_clock_sum += sm.getDouble() * static_cast<double>(samples);
      a.sm_clock_count += samples;
      if (b) {
        b->sm_clock_sum += sm.getDouble() * static_cast<double>(samples);
        b->sm_clock_count += samples;
      }
    }
    if (const SQLite::Column max_sm = select.getColumn(sm_clock_column() + 1); !max_sm.isNull()) {
      keep_max(a.sm_clock_max_hw, max_sm.getDouble());
    }
    if (!select.getColumn(13).isNull() && !select.getColumn(14).isNull()) {
      const double first = select.getColumn(13).getDouble(), last = select.getColumn(14).getDouble();
      const double increase = select.getColumn(15).isNull() ? 0.0 : select.getColumn(15).getDouble();
      a.counter.add(first, last, increase, first != last || increase > 0 ? 2 : std::min<std::int64_t>(samples, 2));
    }
  }
}

}  // namespace gpuwatch::store::report_detail
