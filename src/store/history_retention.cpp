#include "store/history_retention.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>

#include "store/history_columns.hpp"
#include "store/host_history.hpp"
#include "store/millis.hpp"
#include "store/migrations.hpp"
#include "store/rollup_counts.hpp"

namespace gpuwatch::store {
namespace {

std::string rollup_names() {
  std::string names;
  for (const auto& c : history_columns()) names += ", " + c.name + "_min, " + c.name + "_avg, " + c.name + "_max";
  for (const auto& count : rollup_counts()) names += ", " + count.name;
  return names + ", " + kEnergyFirstColumn + ", " + kEnergyLastColumn + ", " + kEnergyIncreaseColumn;
}

// Window over one GPU's rows of one bucket that have (or lack) a value of COLUMN, in
// time order: first_value / last_value / lag then see only the bucket's readings.
std::string bucket_window(const std::string& column, std::int64_t bucket_ms) {
  return " WINDOW w AS (PARTITION BY gpu_id, time_ms / " + std::to_string(bucket_ms) + ", " + column +
         " IS NULL ORDER BY time_ms ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)";
}

// Raw rows before CUTOFF -> gpu_samples_1m (per GPU per minute), with the counts of
// store/rollup_counts.hpp; the energy columns are set by raw_energy_to_minutes_sql().
std::string raw_to_minutes_sql() {
  std::string select;
  for (const auto& c : history_columns()) {
    select += ", min(" + c.name + "), avg(" + c.name + "), max(" + c.name + ")";
  }
  for (const auto& count : rollup_counts()) select += ", " + count.from_raw;
  return "INSERT OR REPLACE INTO gpu_samples_1m (time_ms, gpu_id, samples" + rollup_names() +
         ") SELECT (time_ms / 60000) * 60000, gpu_id, count(*)" + select +
         ", NULL, NULL, NULL FROM gpu_samples WHERE time_ms < :cutoff GROUP BY 1, 2";
}

// The energy counter's first / last reading of each minute and the sum of its increases
// between consecutive readings of the minute (a drop adds nothing). A separate statement
// over the three columns it needs: the window's sort then carries 3 columns, not all.
std::string raw_energy_to_minutes_sql() {
  return std::string("UPDATE gpu_samples_1m SET ") + kEnergyFirstColumn + " = e.first, " + kEnergyLastColumn +
         " = e.last, " + kEnergyIncreaseColumn +
         " = e.increase FROM (SELECT bucket, gpu_id, max(first) AS first, max(last) AS last, total(step) AS increase"
         " FROM (SELECT (time_ms / 60000) * 60000 AS bucket, gpu_id,"
         " first_value(energy_total_mj) OVER w AS first, last_value(energy_total_mj) OVER w AS last,"
         " max(energy_total_mj - lag(energy_total_mj) OVER w, 0) AS step"
         " FROM gpu_samples WHERE time_ms < :cutoff AND energy_total_mj IS NOT NULL"
         " WINDOW w AS (PARTITION BY gpu_id, time_ms / 60000 ORDER BY time_ms"
         " ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)) GROUP BY 1, 2) AS e"
         " WHERE gpu_samples_1m.time_ms = e.bucket AND gpu_samples_1m.gpu_id = e.gpu_id";
}

// 1-minute rows before CUTOFF -> gpu_samples_1h; the average is weighted by the
// samples of each minute that had a value; counts are summed (NULL, i.e. unknown, when
// one minute's is); energy increases are summed with the steps between the minutes.
std::string minutes_to_hours_sql() {
  std::string select;
  for (const auto& c : history_columns()) {
    const std::string avg = c.name + "_avg";
    select += ", min(" + c.name + "_min), sum(" + avg + " * samples) / sum(CASE WHEN " + avg +
              " IS NOT NULL THEN samples END), max(" + c.name + "_max)";
  }
  for (const auto& count : rollup_counts()) {
    select += ", CASE WHEN count(" + count.name + ") = count(*) THEN sum(" + count.name + ") END";
  }
  const std::string first = kEnergyFirstColumn, last = kEnergyLastColumn, increase = kEnergyIncreaseColumn;
  return "INSERT OR REPLACE INTO gpu_samples_1h (time_ms, gpu_id, samples" + rollup_names() +
         ") SELECT (time_ms / 3600000) * 3600000, gpu_id, sum(samples)" + select +
         ", max(energy_first), max(energy_last), CASE WHEN count(" + first + ") > 0 THEN total(" + increase +
         ") + total(energy_gap) END FROM (SELECT *,"
         " CASE WHEN " + first + " IS NOT NULL THEN first_value(" + first + ") OVER w END AS energy_first,"
         " CASE WHEN " + first + " IS NOT NULL THEN last_value(" + last + ") OVER w END AS energy_last,"
         " max(" + first + " - lag(" + last + ") OVER w, 0) AS energy_gap"
         " FROM gpu_samples_1m WHERE time_ms < :cutoff" + bucket_window(first, kHourMs) + ") GROUP BY 1, 2";
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
    // The host rows of the same times go with the GPU rows of each tier (schema 16).
    const std::string host_table = table == "gpu_samples" ? "host_samples" : "host_" + table.substr(4);
    deleted += run(sql, "DELETE FROM " + host_table + " WHERE time_ms < :cutoff", keep_from);
    if (table == "gpu_samples") {
      deleted += run(sql, "DELETE FROM host_process_trees WHERE time_ms < :cutoff", keep_from);
      deleted += run(sql, "DELETE FROM process_samples WHERE time_ms < :cutoff", keep_from);
      run(sql, "DELETE FROM process_commands WHERE last_ms < :cutoff", keep_from);  // schema 11, with them
    }
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
    run(sql, raw_energy_to_minutes_sql(), raw_cutoff);
    result.raw_rolled_up = run(sql, "DELETE FROM gpu_samples WHERE time_ms < :cutoff", raw_cutoff);
    result.process_rows_deleted = run(sql, "DELETE FROM process_samples WHERE time_ms < :cutoff", raw_cutoff);
    // The host (schema 16) as the GPUs: raw rows into 1-minute rollups, the process trees with the processes.
    result.host_minute_rows_written = run(sql, host_raw_to_minutes_sql(), raw_cutoff);
    result.host_raw_rolled_up = run(sql, "DELETE FROM host_samples WHERE time_ms < :cutoff", raw_cutoff);
    run(sql, "DELETE FROM host_process_trees WHERE time_ms < :cutoff", raw_cutoff);
    // Alerts (schema 6) go with the raw samples: their events, and the alerts resolved since. An
    // alert still pending or firing is state, however old.
    result.alert_rows_deleted = run(sql, "DELETE FROM alert_events WHERE time_ms < :cutoff", raw_cutoff);
    result.alert_rows_deleted +=
        run(sql, "DELETE FROM alerts WHERE state = 'resolved' AND updated_ms < :cutoff", raw_cutoff);
    run(sql, "DELETE FROM xid_events WHERE time_ms < :cutoff", raw_cutoff);  // Xids (schema 9) too
    // Command lines (schema 11) serve the process listings, read from process_samples: they go together.
    run(sql, "DELETE FROM process_commands WHERE last_ms < :cutoff", raw_cutoff);

    const std::int64_t minute_cutoff = floor_to(now_ms - policy.minute.count(), kHourMs);
    result.hour_rows_written = run(sql, minutes_to_hours_sql(), minute_cutoff);
    result.minute_rolled_up = run(sql, "DELETE FROM gpu_samples_1m WHERE time_ms < :cutoff", minute_cutoff);
    run(sql, host_minutes_to_hours_sql(), minute_cutoff);
    run(sql, "DELETE FROM host_samples_1m WHERE time_ms < :cutoff", minute_cutoff);
    if (policy.hour.count() > 0) {
      result.hour_deleted = run(sql, "DELETE FROM gpu_samples_1h WHERE time_ms < :cutoff", now_ms - policy.hour.count());
      run(sql, "DELETE FROM host_samples_1h WHERE time_ms < :cutoff", now_ms - policy.hour.count());
      // Who held a GPU (schema 10) is kept as long as any history there is to report for it: a
      // job's owner rows go when its hourly rows do.
      result.owner_rows_deleted =
          run(sql, "DELETE FROM process_owners WHERE last_ms < :cutoff", now_ms - policy.hour.count());
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
