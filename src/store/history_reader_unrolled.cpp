// read_history at --resolution 1m / 1h for the part of the range no rollup covers yet.
// Retention writes rollups only for data older than --retain-raw (7 days by default), so on
// fresh data `history --resolution 1m` found no row at all ("no samples in that range").
// Here the finer rows after the newest rollup row are aggregated the way retention would
// (store/history_retention.cpp): min of the minima, max of the maxima, and the mean over
// non-NULL values weighted by samples (a 1-minute row weighs its sample count).
#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <algorithm>
#include <limits>
#include <map>

#include "store/history_columns.hpp"
#include "store/millis.hpp"
#include "store/history_reader_internal.hpp"

namespace gpuwatch::store::reader_detail {
namespace {

// One bucket of one GPU, per column: min, max, sum of value x weight, weight of non-NULL values.
struct Partial {
  std::vector<double> min, max, sum, weight;
  explicit Partial(std::size_t columns)
      : min(columns, std::numeric_limits<double>::infinity()),
        max(columns, -std::numeric_limits<double>::infinity()),
        sum(columns, 0),
        weight(columns, 0) {}
};

// The first time_ms after TABLE's newest row's bucket (every row when the table is empty).
std::int64_t after_newest(const HistoryDatabase& db, const char* table, std::int64_t width_ms) {
  SQLite::Statement newest(db.sql(), std::string("SELECT max(time_ms) FROM ") + table);
  if (!newest.executeStep() || newest.getColumn(0).isNull()) return std::numeric_limits<std::int64_t>::min();
  return newest.getColumn(0).getInt64() + width_ms;
}

// Adds the rows of TABLE from FROM_MS on (in QUERY's range and GPU) to BUCKETS of WIDTH_MS.
void accumulate(const HistoryDatabase& db, const HistoryQuery& query, const std::vector<const HistoryColumn*>& columns,
                const char* table, bool rollup, std::int64_t from_ms, std::int64_t width_ms,
                std::map<std::pair<std::int64_t, std::int64_t>, Partial>& buckets) {
  const auto present = table_columns(db, table);
  std::string sql = std::string("SELECT time_ms, gpu_id, ") + (rollup ? "samples" : "1");
  for (const auto* column : columns) {
    if (rollup) {
      for (const char* suffix : {"_min", "_avg", "_max"}) sql += ", " + column_or_null(column->name + suffix, present);
    } else {
      sql += ", " + column_or_null(column->name, present);
    }
  }
  sql += std::string(" FROM ") + table + filter_sql(query) + " AND time_ms >= :from ORDER BY time_ms, gpu_id";
  RawStatement select(db, sql);
  select.bind_filter(query);
  select.bind(":from", from_ms);
  sqlite3_stmt* const row = select.get();
  const int per_column = rollup ? 3 : 1;
  while (select.step()) {
    const std::pair key{floor_to(sqlite3_column_int64(row, 0), width_ms), sqlite3_column_int64(row, 1)};
    auto found = buckets.find(key);
    if (found == buckets.end()) found = buckets.emplace(key, Partial(columns.size())).first;
    Partial* const partial = &found->second;
    const double samples = static_cast<double>(sqlite3_column_int64(row, 2));
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const int first = 3 + static_cast<int>(i) * per_column;
      const int mean = rollup ? first + 1 : first;
      if (sqlite3_column_type(row, mean) == SQLITE_NULL) continue;
      const double low = sqlite3_column_double(row, first);
      const double high = sqlite3_column_double(row, rollup ? first + 2 : first);
      partial->min[i] = std::min(partial->min[i], low);
      partial->max[i] = std::max(partial->max[i], high);
      partial->sum[i] += sqlite3_column_double(row, mean) * samples;
      partial->weight[i] += samples;
    }
  }
}

}  // namespace

void append_unrolled_buckets(const HistoryDatabase& db, const HistoryQuery& query,
                             const std::vector<const HistoryColumn*>& columns,
                             const std::map<std::int64_t, const GpuRecord*>& gpu_by_id,
                             std::vector<core::Snapshot>& snapshots, std::size_t& rows) {
  const bool hour = query.resolution == Resolution::Hour;
  const std::int64_t width_ms = hour ? kHourMs : kMinuteMs;
  std::map<std::pair<std::int64_t, std::int64_t>, Partial> buckets;
  const std::int64_t after_minutes = after_newest(db, "gpu_samples_1m", kMinuteMs);
  if (hour) {
    const std::int64_t after_hours = after_newest(db, "gpu_samples_1h", kHourMs);
    accumulate(db, query, columns, "gpu_samples_1m", true, after_hours, width_ms, buckets);
    accumulate(db, query, columns, "gpu_samples", false, std::max(after_hours, after_minutes), width_ms, buckets);
  } else {
    accumulate(db, query, columns, "gpu_samples", false, after_minutes, width_ms, buckets);
  }
  std::optional<std::int64_t> current_ms;
  if (!snapshots.empty()) current_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              snapshots.back().timestamp.time_since_epoch()).count();
  for (const auto& [key, partial] : buckets) {  // in (bucket start, gpu id) order
    if (query.limit > 0 && rows >= query.limit) break;
    auto gpu = gpu_by_id.find(key.second);
    if (gpu == gpu_by_id.end()) continue;
    if (current_ms != key.first) {
      snapshots.emplace_back();
      snapshots.back().timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(key.first));
      current_ms = key.first;
    }
    core::DeviceSnapshot device = device_for(*gpu->second, key.first);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      SqlValue value;
      if (partial.weight[i] > 0) {
        value = query.statistic == Statistic::Min   ? partial.min[i]
                : query.statistic == Statistic::Max ? partial.max[i]
                                                    : partial.sum[i] / partial.weight[i];
      }
      device.get(columns[i]->field) = decode_reading(*columns[i], value);
    }
    snapshots.back().devices.push_back(std::move(device));
    snapshots.back().device_count = static_cast<unsigned>(snapshots.back().devices.size());
    ++rows;
  }
}

}  // namespace gpuwatch::store::reader_detail
