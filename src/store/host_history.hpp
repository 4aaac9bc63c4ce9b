#pragma once
// The host beside the GPUs in the history (issue 25, migration 16): one host_samples row per
// sample time (time_ms, the snapshot's), one REAL column per host_signals::host_fields() key
// (NULL: absent), and one host_process_trees row per GPU process tree of that sample. Rollups
// host_samples_1m / _1h (<key>_min/_avg/_max, as the GPU rollups) are kept by retention
// (store/history_retention.hpp). The readers attach the row of a sample's time to the rebuilt
// snapshot (core::Snapshot::host; HistoryQuery::host).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "host_signals/host_sample.hpp"
#include "store/history_database.hpp"

namespace SQLite {
class Database;
class Statement;
}

namespace gpuwatch::store {

// The host_samples columns besides time_ms: host_fields()' keys, in that order.
std::vector<std::string> host_sample_columns();
// The host rollup tables, finest first.
std::vector<std::string> host_rollup_tables();

// SQL of migration 16: host_samples, host_samples_1m, host_samples_1h, host_process_trees.
std::string schema_v16_sql();
// Adds the host_fields() columns the host tables lack (a field added after migration 16);
// nothing on a file before it. Part of migrate().
void add_missing_host_columns(SQLite::Database& db);

// One sample's rows, as the writer buffers them.
struct HostRow {
  std::int64_t time_ms = 0;
  std::vector<std::optional<double>> values;  // one per host_sample_columns()
  std::vector<host_signals::ProcessTreeRates> trees;
};
HostRow host_row(std::int64_t time_ms, const host_signals::HostSample& sample);

// Writes host rows with statements prepared once (inside the caller's transaction).
class HostRowWriter {
 public:
  HostRowWriter();
  ~HostRowWriter();
  void write(SQLite::Database& db, const std::vector<HostRow>& rows);

 private:
  std::unique_ptr<SQLite::Statement> insert_sample_, insert_tree_;
};

// Streams the recorded host rows of [SINCE_MS, UNTIL_MS] (nullopt: open end) in time order, for a
// reader that walks sample times in order too. A file without host tables reads none.
class HostCursor {
 public:
  HostCursor(const HistoryDatabase& db, std::optional<std::int64_t> since_ms, std::optional<std::int64_t> until_ms);
  ~HostCursor();
  HostCursor(const HostCursor&) = delete;
  HostCursor& operator=(const HostCursor&) = delete;
  // The host sample recorded at TIME_MS (its process trees included), or null; rows before it
  // are skipped. Times must not go back between calls.
  std::shared_ptr<const host_signals::HostSample> at(std::int64_t time_ms);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Every host sample of the range, in time order (tests, report).
core::Result<std::vector<std::shared_ptr<const host_signals::HostSample>>> read_host_samples(
    const HistoryDatabase& db, std::optional<std::int64_t> since_ms, std::optional<std::int64_t> until_ms);

// Retention (history_retention.cpp) over the host tables, each bound to :cutoff: raw host rows
// before it into host_samples_1m; 1-minute rows before it into host_samples_1h (the average
// weighted by the samples of each minute that had a value).
std::string host_raw_to_minutes_sql();
std::string host_minutes_to_hours_sql();

}  // namespace gpuwatch::store
