#include "store/history_report.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace gpuwatch::store {
namespace {

std::string range_sql(const ReportQuery& query) {
  std::string sql = " WHERE 1";
  if (query.since_ms) sql += " AND time_ms >= :since";
  if (query.until_ms) sql += " AND time_ms <= :until";
  return sql;
}

void bind_range(SQLite::Statement& statement, const ReportQuery& query) {
  if (query.since_ms) statement.bind(":since", static_cast<std::int64_t>(*query.since_ms));
  if (query.until_ms) statement.bind(":until", static_cast<std::int64_t>(*query.until_ms));
}

// Per-GPU accumulators of the single scan.
struct Accumulator {
  std::int64_t samples = 0, first_ms = 0, last_ms = 0;
  double utilization_sum = 0;
  std::int64_t utilization_count = 0, idle_count = 0, mask_count = 0;
  std::map<double, std::int64_t> utilization_histogram;
  std::optional<double> memory_used_max, memory_total_max, power_max, temperature_max;
  double power_sum = 0;
  std::int64_t power_count = 0;
  std::vector<std::int64_t> reason_counts = std::vector<std::int64_t>(throttle_reasons().size(), 0);
  std::vector<std::int64_t> gaps;
  std::vector<double> counter_mj;
  std::vector<std::pair<std::int64_t, double>> power_mw;  // (time, mW)
  // chart: bucket -> sums / maxima
  struct Bucket {
    double utilization_sum = 0, power_sum = 0;
    std::int64_t utilization_count = 0, power_count = 0;
    std::optional<double> memory_max, temperature_max;
  };
  std::map<std::int64_t, Bucket> buckets;
  std::int64_t current_bucket_index = -1;
  Bucket* current_bucket = nullptr;
};

void keep_max(std::optional<double>& current, double value) {
  if (!current || value > *current) current = value;
}

double median_gap_ms(std::vector<std::int64_t> gaps) {
  auto middle = gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2);
  std::nth_element(gaps.begin(), middle, gaps.end());
  return static_cast<double>(*middle);
}

// Joules from power samples: trapezoids between neighbours at most 3 intervals apart
// (a longer gap is time the recorder was not running, and counts nothing).
double energy_from_power_j(const std::vector<std::pair<std::int64_t, double>>& power_mw, double interval_ms) {
  double joules = 0;
  for (std::size_t i = 1; i < power_mw.size(); ++i) {
    const double dt_ms = static_cast<double>(power_mw[i].first - power_mw[i - 1].first);
    if (dt_ms > 3 * interval_ms) continue;
    joules += (power_mw[i].second + power_mw[i - 1].second) / 2.0 / 1000.0 * dt_ms / 1000.0;
  }
  return joules;
}

// The chart's bucket width: the range in at most chart_points buckets (0: no chart).
std::int64_t bucket_width(const HistoryDatabase& db, const ReportQuery& query, std::int64_t& first) {
  if (query.chart_points == 0) return 0;
  // Two single-row lookups on the primary key (time_ms first): no scan.
  SQLite::Statement low(db.sql(), "SELECT min(time_ms) FROM gpu_samples" + range_sql(query));
  bind_range(low, query);
  SQLite::Statement high(db.sql(), "SELECT max(time_ms) FROM gpu_samples" + range_sql(query));
  bind_range(high, query);
  if (!low.executeStep() || !high.executeStep() || low.getColumn(0).isNull()) return 0;
  first = low.getColumn(0).getInt64();
  const std::int64_t span = high.getColumn(0).getInt64() - first + 1;
  const auto points = static_cast<std::int64_t>(query.chart_points);
  return std::max<std::int64_t>(1, (span + points - 1) / points);
}

// One pass in primary-key order (time_ms, gpu_id): no sort. A GROUP BY gpu_id would
// make SQLite sort every row of the range first, which costs more than the whole scan.
void scan(const HistoryDatabase& db, const ReportQuery& query, std::map<std::int64_t, Accumulator>& out) {
  std::int64_t chart_first = 0;
  const std::int64_t bucket = bucket_width(db, query, chart_first);
  SQLite::Statement select(db.sql(),
                           "SELECT gpu_id, time_ms, utilization_gpu_percent, memory_used_bytes, memory_total_bytes, "
                           "power_draw_mw, temperature_gpu_c, clocks_event_reasons_active, energy_total_mj "
                           "FROM gpu_samples" + range_sql(query) + " ORDER BY time_ms, gpu_id");
  bind_range(select, query);
  const auto& reasons = throttle_reasons();
  Accumulator* a = nullptr;
  std::int64_t a_id = -1;
  while (select.executeStep()) {
    const std::int64_t gpu_id = select.getColumn(0).getInt64();
    if (gpu_id != a_id) {
      a = &out[gpu_id];
      a_id = gpu_id;
    }
    const std::int64_t time_ms = select.getColumn(1).getInt64();
    if (a->samples == 0) a->first_ms = time_ms;
    else a->gaps.push_back(time_ms - a->last_ms);
    a->last_ms = time_ms;
    ++a->samples;
    Accumulator::Bucket* b = nullptr;
    if (bucket > 0) {
      const std::int64_t index = (time_ms - chart_first) / bucket;
      if (index != a->current_bucket_index) {
        a->current_bucket = &a->buckets[index];
        a->current_bucket_index = index;
      }
      b = a->current_bucket;
    }
    const SQLite::Column utilization = select.getColumn(2);
    if (!utilization.isNull()) {
      const double u = utilization.getDouble();
      a->utilization_sum += u;
      ++a->utilization_count;
      if (u < kIdleBelowPercent) ++a->idle_count;
      ++a->utilization_histogram[u];
      if (b) {
        b->utilization_sum += u;
        ++b->utilization_count;
      }
    }
    const SQLite::Column memory_used = select.getColumn(3);
    if (!memory_used.isNull()) {
      keep_max(a->memory_used_max, memory_used.getDouble());
      if (b) keep_max(b->memory_max, memory_used.getDouble());
    }
    const SQLite::Column memory_total = select.getColumn(4);
    if (!memory_total.isNull()) keep_max(a->memory_total_max, memory_total.getDouble());
    const SQLite::Column power = select.getColumn(5);
    if (!power.isNull()) {
      const double mw = power.getDouble();
      a->power_sum += mw;
      ++a->power_count;
      keep_max(a->power_max, mw);
      a->power_mw.emplace_back(time_ms, mw);
      if (b) {
        b->power_sum += mw;
        ++b->power_count;
      }
    }
    const SQLite::Column temperature = select.getColumn(6);
    if (!temperature.isNull()) {
      keep_max(a->temperature_max, temperature.getDouble());
      if (b) keep_max(b->temperature_max, temperature.getDouble());
    }
    const SQLite::Column mask = select.getColumn(7);
    if (!mask.isNull()) {
      ++a->mask_count;
      const auto bits = static_cast<std::uint64_t>(mask.getInt64());
      if (bits != 0) {
        for (std::size_t r = 0; r < reasons.size(); ++r) {
          if (bits & reasons[r].bit) ++a->reason_counts[r];
        }
      }
    }
    const SQLite::Column energy = select.getColumn(8);
    if (!energy.isNull()) a->counter_mj.push_back(energy.getDouble());
  }
  // Key the buckets by their start time for summarise().
  if (bucket > 0) {
    for (auto& [id, acc] : out) {
      std::map<std::int64_t, Accumulator::Bucket> by_time;
      for (auto& [index, sums] : acc.buckets) by_time.emplace(chart_first + index * bucket, sums);
      acc.buckets.swap(by_time);
    }
  }
}

GpuSummary summarise(const Accumulator& a) {
  GpuSummary s;
  s.samples = a.samples;
  s.first_ms = a.first_ms;
  s.last_ms = a.last_ms;
  if (a.utilization_count > 0) {
    const auto n = static_cast<double>(a.utilization_count);
    s.mean_utilization_percent = a.utilization_sum / n;
    s.idle_share = static_cast<double>(a.idle_count) / n;
    // nearest rank
    const auto rank = static_cast<std::int64_t>(std::ceil(0.95 * n));
    std::int64_t seen = 0;
    for (const auto& [value, count] : a.utilization_histogram) {
      seen += count;
      if (seen >= rank) {
        s.p95_utilization_percent = value;
        break;
      }
    }
  }
  if (a.memory_used_max) s.peak_memory_used_bytes = static_cast<std::uint64_t>(*a.memory_used_max);
  if (a.memory_total_max) s.memory_total_bytes = static_cast<std::uint64_t>(*a.memory_total_max);
  if (a.power_count > 0) s.mean_power_w = a.power_sum / static_cast<double>(a.power_count) / 1000.0;
  if (a.power_max) s.max_power_w = *a.power_max / 1000.0;
  s.max_temperature_c = a.temperature_max;
  s.throttle_mask_recorded = a.mask_count > 0;
  const double interval_ms = a.gaps.empty() ? 0.0 : median_gap_ms(a.gaps);
  if (!a.gaps.empty()) s.sample_interval_s = interval_ms / 1000.0;
  const auto& reasons = throttle_reasons();
  for (std::size_t r = 0; r < reasons.size(); ++r) {
    if (a.reason_counts[r] > 0) {
      s.throttling.push_back({reasons[r].name, a.reason_counts[r], static_cast<double>(a.reason_counts[r]) * interval_ms / 1000.0});
    }
  }
  if (a.counter_mj.size() >= 2) {
    s.energy_kwh = energy_from_counter_mj(a.counter_mj) / 1000.0 / 3.6e6;
    s.energy_source = "counter";
  } else if (a.power_mw.size() >= 2 && !a.gaps.empty()) {
    s.energy_kwh = energy_from_power_j(a.power_mw, interval_ms) / 3.6e6;
    s.energy_source = "power";
  }
  for (const auto& [time_ms, b] : a.buckets) {
    ChartPoint point;
    point.time_ms = time_ms;
    if (b.utilization_count > 0) point.utilization_percent = b.utilization_sum / static_cast<double>(b.utilization_count);
    point.memory_used_bytes = b.memory_max;
    if (b.power_count > 0) point.power_w = b.power_sum / static_cast<double>(b.power_count) / 1000.0;
    point.temperature_c = b.temperature_max;
    s.chart.push_back(point);
  }
  return s;
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

double energy_from_counter_mj(const std::vector<double>& counter_mj) {
  double total = 0;
  for (std::size_t i = 1; i < counter_mj.size(); ++i) {
    const double delta = counter_mj[i] - counter_mj[i - 1];
    total += delta >= 0 ? delta : 0.0;  // a reset: the step across it is not counted
  }
  return total;
}

core::Result<HistoryReport> build_report(const HistoryDatabase& db, const ReportQuery& query) {
  try {
    auto gpus = read_gpus(db);
    if (!gpus) return gpus.error();
    std::map<std::int64_t, Accumulator> by_id;
    scan(db, query, by_id);
    HistoryReport report;
    report.since_ms = query.since_ms;
    report.until_ms = query.until_ms;
    for (const auto& gpu : *gpus) {  // read_gpus orders by index
      auto found = by_id.find(gpu.id);
      if (found == by_id.end()) continue;
      report.gpus.push_back(summarise(found->second));
      report.gpus.back().gpu = gpu;
    }
    HistoryQuery processes;
    processes.since_ms = query.since_ms;
    processes.until_ms = query.until_ms;
    auto summaries = read_process_summaries(db, processes);
    if (!summaries) return summaries.error();
    report.processes = std::move(*summaries);
    return report;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot summarise the history: ") + e.what(), 1);
  }
}

}  // namespace gpuwatch::store
