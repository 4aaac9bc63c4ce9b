#include "store/history_retention.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>

#include "store/history_columns.hpp"
#include "store/migrations.hpp"

namespace gpuwatch::store {
namespace {

constexpr std::int64_t kMinuteMs = 60'000, kHourMs = 3'600'000;

std::int64_t floor_to(std::int64_t ms, std::int64_t unit) { return ms >= 0 ? ms / unit * unit : (ms - unit + 1) / unit * unit; }

std::string rollup_names() {
  std::string names;
  for (const auto& c : history_columns()) names += ", " + c.name + "_min, " + c.name + "_avg, " + c.name + "_max";
  return names;
}

// Raw rows before CUTOFF -> gpu_samples_1m (per GPU per minute).
std::string raw_to_minutes_sql() {
  std::string select;
  for (const auto& c : history_columns()) {
    select += ", min(" + c.name + "), avg(" + c.name + "), max(" + c.name + ")";
  }
  return "INSERT OR REPLACE INTO gpu_samples_1m (time_ms, gpu_id, samples" + rollup_names() +
         ") SELECT (time_ms / 60000) * 60000, gpu_id, count(*)" + select +
         " FROM gpu_samples WHERE time_ms < :cutoff GROUP BY 1, 2";
}

// 1-minute rows before CUTOFF -> gpu_samples_1h; the average is weighted by the
// samples of each minute that had a value.
std::string minutes_to_hours_sql() {
  std::string select;
  for (const auto& c : history_columns()) {
    const std::string avg = c.name + "_avg";
    select += ", min(" + c.name + "_min), sum(" + avg + " * samples) / sum(CASE WHEN " + avg +
              " IS NOT NULL THEN samples END), max(" + c.name + "_max)";
  }
  return "INSERT OR REPLACE INTO gpu_samples_1h (time_ms, gpu_id, samples" + rollup_names() +
         ") SELECT (time_ms / 3600000) * 3600000, gpu_id, sum(samples)" + select +
         " FROM gpu_samples_1m WHERE time_ms < :cutoff GROUP BY 1, 2";
}

int run(SQLite::Database& sql, const std::string& statement_sql, std::int64_t cutoff) {
  SQLite::Statement statement(sql, statement_sql);
  statement.bind(":cutoff", static_cast<std::int64_t>(cutoff));
  return statement.exec();
}

// Deletes the oldest rows of TABLE, about a tenth of what is needed beyond the bound per
// round, until the used pages fit or the table is empty. Returns rows deleted.
std::int64_t shrink_table(HistoryDatabase& db, const std::string& table, std::int64_t max_bytes) {
  auto& sql = db.sql();
  std::int64_t deleted = 0;
  for (int round = 0; round < 64; ++round) {
    const std::int64_t used = used_bytes(db);
    if (used <= max_bytes) break;
    const std::int64_t rows = sql.execAndGet("SELECT count(*) FROM " + table).getInt64();
    if (rows == 0) break;
    const double fraction = static_cast<double>(used - max_bytes) / static_cast<double>(used);
    const auto n = std::max<std::int64_t>(1, static_cast<std::int64_t>(fraction * static_cast<double>(rows) * 1.1) + 1);
    SQLite::Statement oldest(sql, "SELECT time_ms FROM " + table + " ORDER BY time_ms LIMIT 1 OFFSET :n");
    oldest.bind(":n", static_cast<std::int64_t>(std::min(n, rows) - 1));
    if (!oldest.executeStep()) break;
    const std::int64_t keep_from = oldest.getColumn(0).getInt64() + 1;
    oldest.reset();
    deleted += run(sql, "DELETE FROM " + table + " WHERE time_ms < :cutoff", keep_from);
    if (table == "gpu_samples") deleted += run(sql, "DELETE FROM process_samples WHERE time_ms < :cutoff", keep_from);
  }
  return deleted;
}

}  // namespace

std::int64_t used_bytes(const HistoryDatabase& db) {
  auto& sql = db.sql();
  return (sql.execAndGet("PRAGMA page_count").getInt64() - sql.execAndGet("PRAGMA freelist_count").getInt64()) *
         sql.execAndGet("PRAGMA page_size").getInt64();
}

core::Result<RetentionResult> apply_retention(HistoryDatabase& db, const RetentionPolicy& policy, std::int64_t now_ms) {
  RetentionResult result;
  try {
    auto& sql = db.sql();
    SQLite::Transaction transaction(sql, SQLite::TransactionBehavior::IMMEDIATE);
    const std::int64_t raw_cutoff = floor_to(now_ms - policy.raw.count(), kMinuteMs);
    result.minute_rows_written = run(sql, raw_to_minutes_sql(), raw_cutoff);
    result.raw_rolled_up = run(sql, "DELETE FROM gpu_samples WHERE time_ms < :cutoff", raw_cutoff);
    result.process_rows_deleted = run(sql, "DELETE FROM process_samples WHERE time_ms < :cutoff", raw_cutoff);

    const std::int64_t minute_cutoff = floor_to(now_ms - policy.minute.count(), kHourMs);
    result.hour_rows_written = run(sql, minutes_to_hours_sql(), minute_cutoff);
    result.minute_rolled_up = run(sql, "DELETE FROM gpu_samples_1m WHERE time_ms < :cutoff", minute_cutoff);
    if (policy.hour.count() > 0) {
      result.hour_deleted = run(sql, "DELETE FROM gpu_samples_1h WHERE time_ms < :cutoff", now_ms - policy.hour.count());
    }
    if (policy.max_size_bytes > 0) {
      for (const char* table : {"gpu_samples", "gpu_samples_1m", "gpu_samples_1h"}) {
        if (used_bytes(db) <= policy.max_size_bytes) break;
        result.deleted_for_size += shrink_table(db, table, policy.max_size_bytes);
      }
    }
    transaction.commit();
    return result;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot apply the retention policy: ") + e.what(), 1);
  }
}

}  // namespace gpuwatch::store
