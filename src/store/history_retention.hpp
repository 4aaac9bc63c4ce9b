#pragma once
// Retention and downsampling of the history, run by the recorder between flushes:
//  * raw gpu_samples older than `raw` are rolled up into gpu_samples_1m (per GPU per
//    minute: sample count, min/avg/max of every column; avg over non-NULL values, NULL
//    when every value was NULL; plus the counts and energy-counter columns of
//    store/rollup_counts.hpp), then deleted; process_samples older than `raw` go too;
//  * 1-minute rows older than `minute` are rolled up into gpu_samples_1h, then deleted;
//  * 1-hour rows older than `hour` are deleted (0: kept forever), and with them the process owners
//    (schema 10) whose span ended before that;
//  * with max_size_bytes, the oldest rows are deleted until the pages in use fit:
//    raw samples first, then 1-minute, then 1-hour rows;
//  * the host tables (schema 16, store/host_history.hpp) follow the GPU samples tier by tier:
//    host_samples -> host_samples_1m -> host_samples_1h, host_process_trees with process_samples.
// Only whole buckets are rolled up (the cut-off is rounded down to the minute / hour),
// so each bucket is written once. All work is in one transaction; `now` is passed in.
#include <chrono>
#include <cstdint>

#include "core/result.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::store {

struct RetentionPolicy {
  std::chrono::milliseconds raw{std::chrono::hours(24 * 7)};
  std::chrono::milliseconds minute{std::chrono::hours(24 * 90)};
  std::chrono::milliseconds hour{0};  // 0: forever
  std::int64_t max_size_bytes = 0;    // 0: no bound
};

struct RetentionResult {
  std::int64_t raw_rolled_up = 0, minute_rows_written = 0, minute_rolled_up = 0, hour_rows_written = 0;
  std::int64_t hour_deleted = 0, process_rows_deleted = 0;
  std::int64_t alert_rows_deleted = 0;  // alert events and resolved alerts older than the raw cutoff
  std::int64_t deleted_for_size = 0;  // rows of any table deleted to honour max_size_bytes
  std::int64_t owner_rows_deleted = 0;  // process owners (schema 10) that ended before the hour tier's cutoff
  // The host (schema 16): raw host rows rolled into host_samples_1m and deleted (their process trees
  // with them); the 1-minute and 1-hour host tiers follow the GPU tiers' cutoffs.
  std::int64_t host_minute_rows_written = 0, host_raw_rolled_up = 0;
};

core::Result<RetentionResult> apply_retention(HistoryDatabase& db, const RetentionPolicy& policy, std::int64_t now_ms);

// Bytes of the pages holding data: (page_count - freelist_count) * page_size. Freed
// pages are reused, so the file stays near this once it has been reached.
std::int64_t used_bytes(const HistoryDatabase& db);

}  // namespace gpuwatch::store
