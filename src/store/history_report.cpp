#include "store/history_report.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "store/history_report_scan.hpp"

namespace gpuwatch::store {
namespace {

using report_detail::Accumulator;
using report_detail::ChartBucket;
using report_detail::ChartGrid;
using report_detail::kSources;
using report_detail::Source;
using report_detail::TimeFilter;

std::optional<std::int64_t> single_time(const HistoryDatabase& db, const std::string& sql, const TimeFilter& filter) {
  SQLite::Statement statement(db.sql(), sql + filter.sql());
  filter.bind(statement);
  if (!statement.executeStep() || statement.getColumn(0).isNull()) return std::nullopt;
  return statement.getColumn(0).getInt64();
}

std::optional<std::int64_t> earliest(std::optional<std::int64_t> a, std::optional<std::int64_t> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

// Which rows of each source the report reads: a rollup bucket must END by the time the
// next finer source starts (its first row, in the whole database), so no sample is
// counted twice even if retention ever left a bucket beside raw rows.
std::array<TimeFilter, kSources> source_filters(const HistoryDatabase& db, const ReportQuery& query) {
  std::array<TimeFilter, kSources> filters;
  filters[Source::kRaw] = {query.since_ms, query.until_ms};
  std::optional<std::int64_t> finer_start = single_time(db, "SELECT min(time_ms) FROM gpu_samples", {});
  for (Source source : {Source::kMinute, Source::kHour}) {
    const std::int64_t bucket = report_detail::kBucketMs[source];
    std::optional<std::int64_t> last_start;  // the last bucket start allowed
    if (finer_start) last_start = *finer_start - bucket;
    filters[source] = {query.since_ms, earliest(query.until_ms, last_start)};
    finer_start = earliest(finer_start, single_time(db, std::string("SELECT min(time_ms) FROM ") +
                                                            report_detail::kTables[source],
                                                    {std::nullopt, last_start}));
  }
  return filters;
}

// Two single-row lookups on the primary key (time_ms first): no scan.
std::optional<SourceSpan> span_of(const HistoryDatabase& db, Source source, const TimeFilter& filter) {
  const std::string table = report_detail::kTables[source];
  auto first = single_time(db, "SELECT min(time_ms) FROM " + table, filter);
  auto last = single_time(db, "SELECT max(time_ms) FROM " + table, filter);
  if (!first || !last) return std::nullopt;
  return SourceSpan{*first, *last};
}

// The chart's buckets: the covered span in at most chart_points buckets (0: no chart).
ChartGrid chart_grid(const HistoryReport& report, const ReportQuery& query) {
  ChartGrid grid;
  std::optional<std::int64_t> first, last;
  for (const auto* span : {&report.raw, &report.rollup_1m, &report.rollup_1h}) {
    if (!*span) continue;
    first = earliest(first, (*span)->first_ms);
    last = std::max(last.value_or((*span)->last_ms), (*span)->last_ms);
  }
  if (query.chart_points == 0 || !first) return grid;
  const std::int64_t range = *last - *first + 1;
  const auto points = static_cast<std::int64_t>(query.chart_points);
  grid.first_ms = *first;
  grid.width_ms = std::max<std::int64_t>(1, (range + points - 1) / points);
  return grid;
}

double median(std::vector<double> values) {
  auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
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

// Raw samples: one pass in primary-key order (time_ms, gpu_id).
void scan_raw(const HistoryDatabase& db, const TimeFilter& filter, const ChartGrid& grid,
              std::map<std::int64_t, Accumulator>& out) {
  SQLite::Statement select(db.sql(),
                           "SELECT gpu_id, time_ms, utilization_gpu_percent, memory_used_bytes, memory_total_bytes, "
                           "power_draw_mw, temperature_gpu_c, clocks_event_reasons_active, energy_total_mj, "
                           "clocks_current_sm_mhz, clocks_max_sm_mhz FROM gpu_samples" + filter.sql() + " ORDER BY time_ms, gpu_id");
  filter.bind(select);
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
    const std::int64_t raw_before = a->samples - a->rollup_samples;
    if (raw_before > 0) a->gaps.push_back(time_ms - a->last_ms);
    ChartBucket* b = a->add_samples(time_ms, 1, grid);
    const SQLite::Column utilization = select.getColumn(2);
    if (!utilization.isNull()) {
      const double u = utilization.getDouble();
      a->utilization_sum += u;
      ++a->utilization_count;
      ++a->idle_known;
      if (u < kIdleBelowPercent) ++a->idle_count;
      ++a->utilization_histogram[u];
      if (b) {
        b->utilization_sum += u;
        ++b->utilization_count;
      }
    }
    const SQLite::Column memory_used = select.getColumn(3);
    if (!memory_used.isNull()) {
      report_detail::keep_max(a->memory_used_max, memory_used.getDouble());
      if (b) report_detail::keep_max(b->memory_max, memory_used.getDouble());
    }
    const SQLite::Column memory_total = select.getColumn(4);
    if (!memory_total.isNull()) report_detail::keep_max(a->memory_total_max, memory_total.getDouble());
    const SQLite::Column power = select.getColumn(5);
    if (!power.isNull()) {
      const double mw = power.getDouble();
      a->power_sum += mw;
      ++a->power_count;
      report_detail::keep_max(a->power_max, mw);
      a->power_mw.emplace_back(time_ms, mw);
      if (b) {
        b->power_sum += mw;
        ++b->power_count;
      }
    }
    const SQLite::Column temperature = select.getColumn(6);
    if (!temperature.isNull()) {
      report_detail::keep_max(a->temperature_max, temperature.getDouble());
      if (b) report_detail::keep_max(b->temperature_max, temperature.getDouble());
    }
    const SQLite::Column mask = select.getColumn(7);
    if (!mask.isNull()) {
      ++a->mask_count[Source::kRaw];
      const auto bits = static_cast<std::uint64_t>(mask.getInt64());
      const bool held_back = (bits & report_detail::kHeldBackBits) != 0;
      a->thermal_count += (bits & report_detail::kThermalBits) != 0 ? 1 : 0;
      a->power_capped_count += (bits & report_detail::kPowerBits) != 0 ? 1 : 0;
      a->held_back_count += held_back ? 1 : 0;
      if (b) {
        ++b->mask_count;
        b->held_back_count += held_back ? 1 : 0;
      }
      if (bits != 0) {
        for (std::size_t r = 0; r < reasons.size(); ++r) {
          if (bits & reasons[r].bit) ++a->reason_counts[Source::kRaw][r];
        }
      }
    }
    const SQLite::Column energy = select.getColumn(8);
    if (!energy.isNull()) a->counter.add(energy.getDouble(), energy.getDouble(), 0, 1);
    const SQLite::Column sm_clock = select.getColumn(9);
    if (!sm_clock.isNull()) {
      a->sm_clock_sum += sm_clock.getDouble();
      ++a->sm_clock_count;
      if (b) {
        b->sm_clock_sum += sm_clock.getDouble();
        ++b->sm_clock_count;
      }
    }
    if (const SQLite::Column max_sm = select.getColumn(10); !max_sm.isNull()) {
      report_detail::keep_max(a->sm_clock_max_hw, max_sm.getDouble());
    }
  }
}

// Milliseconds per sample of each source: the median gap (raw) or the median of
// bucket / samples (rollups; a partly recorded bucket holds fewer samples). 0: unknown.
std::array<double, kSources> sample_intervals_ms(const Accumulator& a) {
  std::array<double, kSources> intervals{};
  if (!a.gaps.empty()) {
    intervals[Source::kRaw] = median(std::vector<double>(a.gaps.begin(), a.gaps.end()));
  }
  for (Source source : {Source::kMinute, Source::kHour}) {
    if (!a.per_sample_ms[source].empty()) intervals[source] = median(a.per_sample_ms[source]);
  }
  return intervals;
}

void summarise_utilization(const Accumulator& a, GpuSummary& s) {
  if (a.utilization_count <= 0) return;
  const auto n = static_cast<double>(a.utilization_count);
  s.mean_utilization_percent = a.utilization_sum / n;
  if (a.idle_known > 0) s.idle_share = static_cast<double>(a.idle_count) / static_cast<double>(a.idle_known);
  const auto rank = static_cast<std::int64_t>(std::ceil(0.95 * n));  // nearest rank
  std::int64_t seen = 0;
  for (const auto& [value, count] : a.utilization_histogram) {
    seen += count;
    if (seen >= rank) {
      s.p95_utilization_percent = value;
      break;
    }
  }
  s.p95_approximate = a.histogram_from_rollups;
}

void summarise_energy(const Accumulator& a, const std::array<double, kSources>& intervals, GpuSummary& s) {
  if (a.counter.readings >= 2) {
    s.energy_kwh = a.counter.increase_mj / 1000.0 / 3.6e6;
    s.energy_source = "counter";
    return;
  }
  double joules = 0;
  bool known = false;
  if (a.power_mw.size() >= 2 && !a.gaps.empty()) {
    joules += energy_from_power_j(a.power_mw, intervals[Source::kRaw]);
    known = true;
  }
  for (Source source : {Source::kMinute, Source::kHour}) {
    if (a.power_rollup_count[source] == 0 || intervals[source] <= 0) continue;
    joules += a.power_mw_samples[source] / 1000.0 * intervals[source] / 1000.0;
    known = true;
  }
  if (known) {
    s.energy_kwh = joules / 3.6e6;
    s.energy_source = "estimated";  // integrated power (issue 29's word)
  }
}

GpuSummary summarise(const Accumulator& a, const ChartGrid& grid) {
  GpuSummary s;
  s.samples = a.samples;
  s.rollup_samples = a.rollup_samples;
  s.first_ms = a.first_ms;
  s.last_ms = a.last_ms;
  summarise_utilization(a, s);
  if (a.memory_used_max) s.peak_memory_used_bytes = static_cast<std::uint64_t>(*a.memory_used_max);
  if (a.memory_total_max) s.memory_total_bytes = static_cast<std::uint64_t>(*a.memory_total_max);
  if (a.power_count > 0) s.mean_power_w = a.power_sum / static_cast<double>(a.power_count) / 1000.0;
  if (a.power_max) s.max_power_w = *a.power_max / 1000.0;
  s.max_temperature_c = a.temperature_max;
  const auto intervals = sample_intervals_ms(a);
  for (double interval : intervals) {  // the finest source that knows it
    if (interval > 0) {
      s.sample_interval_s = interval / 1000.0;
      break;
    }
  }
  const auto& reasons = throttle_reasons();
  for (std::size_t source = 0; source < kSources; ++source) s.throttle_mask_recorded |= a.mask_count[source] > 0;
  for (std::size_t r = 0; r < reasons.size(); ++r) {
    ThrottleTime time{reasons[r].name, 0, 0.0};
    for (std::size_t source = 0; source < kSources; ++source) {
      time.samples += a.reason_counts[source][r];
      time.seconds += static_cast<double>(a.reason_counts[source][r]) * intervals[source] / 1000.0;
    }
    if (time.samples > 0) s.throttling.push_back(time);
  }
  std::int64_t masked = 0;
  for (std::int64_t count : a.mask_count) masked += count;
  if (masked > 0) {
    const auto share = [masked](std::int64_t n) { return static_cast<double>(n) / static_cast<double>(masked); };
    s.thermal_share = share(a.thermal_count);
    s.power_capped_share = share(a.power_capped_count);
    s.held_back_share = share(a.held_back_count);
  }
  if (a.sm_clock_count > 0) s.mean_sm_clock_mhz = a.sm_clock_sum / static_cast<double>(a.sm_clock_count);
  s.max_sm_clock_mhz = a.sm_clock_max_hw;
  summarise_energy(a, intervals, s);
  for (const auto& [index, b] : a.buckets) {
    ChartPoint point;
    point.time_ms = grid.first_ms + index * grid.width_ms;
    if (b.utilization_count > 0) point.utilization_percent = b.utilization_sum / static_cast<double>(b.utilization_count);
    point.memory_used_bytes = b.memory_max;
    if (b.power_count > 0) point.power_w = b.power_sum / static_cast<double>(b.power_count) / 1000.0;
    point.temperature_c = b.temperature_max;
    if (b.sm_clock_count > 0) point.sm_clock_mhz = b.sm_clock_sum / static_cast<double>(b.sm_clock_count);
    if (b.mask_count > 0) {
      point.held_back_share = static_cast<double>(b.held_back_count) / static_cast<double>(b.mask_count);
    }
    s.chart.push_back(point);
  }
  return s;
}

}  // namespace

double energy_from_counter_mj(const std::vector<double>& counter_mj) {
  report_detail::CounterEnergy counter;
  for (double value : counter_mj) counter.add(value, value, 0, 1);
  return counter.increase_mj;
}

core::Result<HistoryReport> build_report(const HistoryDatabase& db, const ReportQuery& query) {
  try {
    auto gpus = read_gpus(db);
    if (!gpus) return gpus.error();
    HistoryReport report;
    report.since_ms = query.since_ms;
    report.until_ms = query.until_ms;
    // A file a recorder has not opened since schema 3 (report opens read-only, so it cannot
    // migrate it) has no rollup counts: its rollups are left out, as before schema 3.
    const bool rollups = db.schema_version() >= 3;
    const auto filters = rollups ? source_filters(db, query) : std::array<TimeFilter, kSources>{};
    report.raw = span_of(db, Source::kRaw, TimeFilter{query.since_ms, query.until_ms});
    if (rollups) {
      report.rollup_1m = span_of(db, Source::kMinute, filters[Source::kMinute]);
      report.rollup_1h = span_of(db, Source::kHour, filters[Source::kHour]);
    }
    const ChartGrid grid = chart_grid(report, query);
    std::map<std::int64_t, Accumulator> by_id;
    // Oldest first, so each GPU's samples (and energy counter readings) arrive in order.
    if (report.rollup_1h) report_detail::scan_rollups(db, Source::kHour, filters[Source::kHour], grid, by_id);
    if (report.rollup_1m) report_detail::scan_rollups(db, Source::kMinute, filters[Source::kMinute], grid, by_id);
    if (report.raw) scan_raw(db, TimeFilter{query.since_ms, query.until_ms}, grid, by_id);
    for (const auto& gpu : *gpus) {  // read_gpus orders by index
      auto found = by_id.find(gpu.id);
      if (found == by_id.end() || found->second.samples == 0) continue;
      report.gpus.push_back(summarise(found->second, grid));
      report.gpus.back().gpu = gpu;
    }
    HistoryQuery processes;
    processes.since_ms = query.since_ms;
    processes.until_ms = query.until_ms;
    auto summaries = read_process_summaries(db, processes);
    if (!summaries) return summaries.error();
    report.processes = std::move(*summaries);
    auto sources = read_sources(db, query.since_ms, query.until_ms);
    if (!sources) return sources.error();
    report.data_sources = std::move(*sources);
    report.provenance = provenance_of(report.data_sources);
    auto xids = read_xid_events(db, query.since_ms, query.until_ms);
    if (!xids) return xids.error();
    if (xids->size() > kReportEventsRead) xids->erase(xids->begin(), xids->end() - kReportEventsRead);
    report.xid_events = std::move(*xids);
    auto alert_events = read_alert_events_since(db, query.since_ms.value_or(0), kReportEventsRead);
    if (!alert_events) return alert_events.error();
    for (auto& e : *alert_events) {
      if (!query.until_ms || e.time_ms <= *query.until_ms) report.alert_events.push_back(std::move(e));
    }
    return report;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot summarise the history: ") + e.what(), 1);
  }
}

}  // namespace gpuwatch::store
