#include "store/history_buckets.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "store/history_columns.hpp"
#include "store/millis.hpp"
#include "store/read_deadline.hpp"

namespace gpuwatch::store {
namespace {

// Raw samples read per GPU per bucket at most (evenly spaced): enough for a faithful mean,
// and a week at 1 Hz reads a fifth of its rows.
constexpr std::int64_t kSamplesPerBucket = 120;

// Sums per field of one bucket: value * weight and the weight of non-NULL values.
struct Accumulator {
  std::vector<double> sum, weight;
  std::vector<double> low, high;  // least and greatest value seen (a rollup row: its own min and max)
};

struct GpuAccumulator {
  std::map<std::int64_t, Accumulator> buckets;  // bucket start -> sums
};

struct Table {
  const char* name;
  bool rollup;           // columns are <name>_avg, weighted by `samples`
  std::int64_t step_ms;  // the table's own resolution (0: raw)
};
constexpr std::array<Table, 3> kTables = {{{"gpu_samples_1h", true, kHourMs},
                                           {"gpu_samples_1m", true, kMinuteMs},
                                           {"gpu_samples", false, 0}}};

std::string scan_sql(const Table& table, const std::vector<const HistoryColumn*>& columns, bool one_gpu) {
  std::string sql = std::string("SELECT time_ms, gpu_id, ") + (table.rollup ? "samples" : "1");
  for (const HistoryColumn* column : columns) {
    if (column == nullptr) {
      sql += table.rollup ? ", NULL, NULL, NULL" : ", NULL";
    } else if (table.rollup) {
      sql += ", " + column->name + "_avg, " + column->name + "_min, " + column->name + "_max";
    } else {
      sql += ", " + column->name;
    }
  }
  sql += std::string(" FROM ") + table.name + " WHERE time_ms >= :since AND time_ms <= :until";
  if (one_gpu) sql += " AND gpu_id IN (SELECT id FROM gpus WHERE gpu_index = :gpu)";
  return sql + " ORDER BY time_ms";  // the primary key's order: no sort
}

// A prepared statement of the raw C API: this scan reads millions of rows, and
// SQLiteCpp's per-column objects cost more than the read itself.
struct StatementDeleter {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using RawStatement = std::unique_ptr<sqlite3_stmt, StatementDeleter>;

RawStatement prepare(sqlite3* handle, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  int rc = sqlite3_prepare_v2(handle, sql.c_str(), static_cast<int>(sql.size()), &statement, nullptr);
  RawStatement owned(statement);
  if (rc != SQLITE_OK) throw SQLite::Exception(handle, rc);
  return owned;
}

// Adds TABLE's rows of the range to ACCUMULATORS (by GPU index); true when it had any.
bool scan_table(const HistoryDatabase& db, const Table& table, const BucketQuery& query,
                const std::vector<const HistoryColumn*>& columns, const std::unordered_map<std::int64_t, unsigned>& index_of,
                std::map<unsigned, GpuAccumulator>& accumulators) {
  sqlite3* handle = db.sql().getHandle();
  RawStatement select = prepare(handle, scan_sql(table, columns, query.gpu_index.has_value()));
  sqlite3_stmt* s = select.get();
  sqlite3_bind_int64(s, sqlite3_bind_parameter_index(s, ":since"), query.since_ms);
  sqlite3_bind_int64(s, sqlite3_bind_parameter_index(s, ":until"), query.until_ms);
  if (query.gpu_index) sqlite3_bind_int64(s, sqlite3_bind_parameter_index(s, ":gpu"), *query.gpu_index);
  const std::size_t n = columns.size();
  bool any = false;
  // Raw rows: at most kSamplesPerBucket per GPU per bucket are read, evenly spaced
  // (reading the columns costs far more than stepping over a row).
  const std::int64_t stride_ms = table.rollup ? 0 : query.bucket_ms / kSamplesPerBucket;
  // Per GPU id: the bucket it last wrote to (rows come in time order, so mostly the same
  // one) and the earliest time of the next row to read.
  struct Cursor {
    std::int64_t bucket = 0, next_ms = INT64_MIN;
    Accumulator* acc = nullptr;
  };
  std::unordered_map<std::int64_t, Cursor> cursors;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const std::int64_t time_ms = sqlite3_column_int64(s, 0);
    const std::int64_t gpu_id = sqlite3_column_int64(s, 1);
    auto gpu = index_of.find(gpu_id);
    if (gpu == index_of.end()) continue;
    any = true;
    Cursor& cursor = cursors[gpu_id];
    if (time_ms < cursor.next_ms) continue;
    const std::int64_t bucket = floor_to(time_ms, query.bucket_ms);
    cursor.next_ms = std::max(time_ms + stride_ms, cursor.next_ms + stride_ms);
    if (cursor.acc == nullptr || cursor.bucket != bucket) {
      Accumulator& slot = accumulators[gpu->second].buckets[bucket];
      if (slot.sum.empty()) {
        slot.sum.assign(n, 0.0), slot.weight.assign(n, 0.0);
        slot.low.assign(n, std::numeric_limits<double>::infinity());
        slot.high.assign(n, -std::numeric_limits<double>::infinity());
      }
      cursor.bucket = bucket;
      cursor.acc = &slot;
    }
    Accumulator* acc = cursor.acc;
    const double weight = static_cast<double>(sqlite3_column_int64(s, 2));
    const int per_field = table.rollup ? 3 : 1;  // rollups: avg, min, max
    for (std::size_t f = 0; f < n; ++f) {
      const int column = static_cast<int>(f) * per_field + 3;
      if (sqlite3_column_type(s, column) == SQLITE_NULL) continue;
      const double value = sqlite3_column_double(s, column);
      acc->sum[f] += value * weight;
      acc->weight[f] += weight;
      const bool spread = table.rollup && sqlite3_column_type(s, column + 1) != SQLITE_NULL &&
                          sqlite3_column_type(s, column + 2) != SQLITE_NULL;
      acc->low[f] = std::min(acc->low[f], spread ? sqlite3_column_double(s, column + 1) : value);
      acc->high[f] = std::max(acc->high[f], spread ? sqlite3_column_double(s, column + 2) : value);
    }
  }
  if (rc != SQLITE_DONE) throw SQLite::Exception(handle, rc);
  return any;
}

}  // namespace

std::int64_t choose_bucket_ms(std::int64_t span_ms, std::size_t max_points, std::int64_t min_ms) {
  static constexpr std::array<std::int64_t, 17> kRound = {
      1 * kSecondMs,  2 * kSecondMs,  5 * kSecondMs,  10 * kSecondMs, 15 * kSecondMs, 30 * kSecondMs,
      1 * kMinuteMs,  2 * kMinuteMs,  5 * kMinuteMs,  10 * kMinuteMs, 15 * kMinuteMs, 30 * kMinuteMs,
      1 * kHourMs,    2 * kHourMs,    3 * kHourMs,    6 * kHourMs,    12 * kHourMs};
  const std::int64_t points = static_cast<std::int64_t>(std::max<std::size_t>(max_points, 1));
  const std::int64_t wanted = std::max<std::int64_t>({(span_ms + points - 1) / points, min_ms, 1});
  for (std::int64_t size : kRound) {
    if (size >= wanted) return size;
  }
  return (wanted + kDayMs - 1) / kDayMs * kDayMs;
}

core::Result<BucketedHistory> read_bucketed_history(const HistoryDatabase& db, const BucketQuery& query) {
  if (query.bucket_ms <= 0) return core::make_error("the bucket size must be positive", 1);
  std::vector<const HistoryColumn*> columns;
  for (core::FieldId field : query.fields) columns.push_back(find_history_column(field));
  BucketedHistory out;
  out.bucket_ms = query.bucket_ms;
  try {
    ReadDeadline deadline(db.sql().getHandle(), query.time_budget, query.cancelled);
    std::unordered_map<std::int64_t, unsigned> index_of;  // gpus.id -> index (GPUs replaced at an index merge)
    SQLite::Statement gpus(db.sql(), "SELECT id, gpu_index FROM gpus WHERE gpu_index IS NOT NULL");
    while (gpus.executeStep()) index_of[gpus.getColumn(0).getInt64()] = static_cast<unsigned>(gpus.getColumn(1).getInt64());

    std::map<unsigned, GpuAccumulator> accumulators;
    for (const Table& table : kTables) {
      if (scan_table(db, table, query, columns, index_of, accumulators)) {
        out.coarsest_source_ms = std::max(out.coarsest_source_ms, table.step_ms);
      }
    }
    for (auto& [index, gpu] : accumulators) {
      GpuBuckets series;
      series.index = index;
      series.values.assign(columns.size(), {});
      series.minimum.assign(columns.size(), {});
      series.maximum.assign(columns.size(), {});
      for (const auto& [start, acc] : gpu.buckets) {
        series.time_ms.push_back(start);
        for (std::size_t f = 0; f < columns.size(); ++f) {
          if (acc.weight[f] > 0) {
            series.values[f].push_back(acc.sum[f] / acc.weight[f] / columns[f]->scale);
            series.minimum[f].push_back(acc.low[f] / columns[f]->scale);
            series.maximum[f].push_back(acc.high[f] / columns[f]->scale);
          } else {
            series.values[f].push_back(std::nullopt);
            series.minimum[f].push_back(std::nullopt);
            series.maximum[f].push_back(std::nullopt);
          }
        }
      }
      out.gpus.push_back(std::move(series));
    }
    return out;
  } catch (const SQLite::Exception& e) {
    if (e.getErrorCode() == SQLITE_INTERRUPT) {
      if (query.cancelled != nullptr && query.cancelled->load()) return core::make_error("the server is stopping", 1);
      return core::make_error("reading the history took longer than " + std::to_string(query.time_budget.count()) +
                                  " ms: ask for a shorter range",
                              1);
    }
    return core::make_error(std::string("cannot read the history: ") + e.what(), 1);
  }
}

}  // namespace gpuwatch::store
