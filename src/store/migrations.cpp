#include "store/migrations.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <set>

#include "store/data_sources.hpp"
#include "store/history_columns.hpp"
#include "store/host_history.hpp"
#include "store/imports.hpp"
#include "store/untrusted_file.hpp"
#include "store/jobs.hpp"
#include "store/process_commands.hpp"
#include "store/process_owners.hpp"
#include "store/rollup_counts.hpp"
#include "store/xid_log.hpp"

namespace gpuwatch::store {
namespace {

// The gpu_samples columns of a file at SCHEMA_VERSION.
std::string gpu_sample_columns_sql(int schema_version) {
  std::string sql;
  for (const auto& column : history_columns_of_schema(schema_version)) sql += ",\n  " + column.name + " " + column.sql_type;
  return sql;
}

std::set<std::string> existing_columns(SQLite::Database& db, const std::string& table) {
  std::set<std::string> names;
  SQLite::Statement info(db, "PRAGMA table_info(" + table + ")");
  while (info.executeStep()) names.insert(info.getColumn(1).getString());
  return names;
}

constexpr const char* kRollupSuffixes[] = {"_min", "_avg", "_max"};

std::string rollup_columns_sql(int schema_version) {
  std::string sql;
  for (const auto& column : history_columns_of_schema(schema_version)) {
    for (const char* suffix : kRollupSuffixes) sql += ",\n  " + column.name + suffix + " REAL";
  }
  return sql;
}

std::string rollup_table_sql(const std::string& table) {
  return "CREATE TABLE " + table + " (\n  time_ms INTEGER NOT NULL,\n  gpu_id INTEGER NOT NULL REFERENCES gpus(id),\n"
         "  samples INTEGER NOT NULL" + rollup_columns_sql(2) + ",\n  PRIMARY KEY (time_ms, gpu_id)\n) WITHOUT ROWID;\n";
}

// SQL without its "ALTER TABLE t ADD COLUMN c ..." statements whose column t already has: a
// column migration runs again on a file whose user_version was set back (issue 24: schema 14).
std::string without_existing_columns(SQLite::Database& db, const std::string& sql) {
  constexpr std::string_view kAlter = "ALTER TABLE ", kAdd = " ADD COLUMN ";
  std::string out;
  std::size_t pos = 0;
  while (pos < sql.size()) {
    std::size_t end = sql.find(";\n", pos);
    end = end == std::string::npos ? sql.size() : end + 2;
    const std::string statement = sql.substr(pos, end - pos);
    pos = end;
    const std::size_t add = statement.find(kAdd);
    if (statement.rfind(kAlter, 0) == 0 && add != std::string::npos) {
      const std::string table = statement.substr(kAlter.size(), add - kAlter.size());
      const std::size_t name_at = add + kAdd.size();
      const std::string column = statement.substr(name_at, statement.find(' ', name_at) - name_at);
      if (existing_columns(db, table).count(column) != 0) continue;
    }
    out += statement;
  }
  return out;
}

void add_missing_sample_columns(SQLite::Database& db) {
  auto names = existing_columns(db, "gpu_samples");
  for (const auto& column : history_columns()) {
    if (names.count(column.name) == 0) {
      db.exec("ALTER TABLE gpu_samples ADD COLUMN " + column.name + " " + column.sql_type);
    }
  }
  for (const auto& table : rollup_tables()) {
    auto rollup_names = existing_columns(db, table);
    if (rollup_names.empty()) continue;  // not migrated to v2 yet
    for (const auto& column : history_columns()) {
      for (const char* suffix : kRollupSuffixes) {
        if (rollup_names.count(column.name + suffix) == 0) {
          db.exec("ALTER TABLE " + table + " ADD COLUMN " + column.name + suffix + " REAL");
        }
      }
    }
  }
}

}  // namespace

std::string schema_v1_sql() {
  return
      // One row per GPU ever seen, keyed by UUID (or "pci:<bus id>" / "index:<n>" when
      // the UUID cannot be read). Identity is kept here, not repeated per sample.
      "CREATE TABLE gpus (\n"
      "  id INTEGER PRIMARY KEY,\n"
      "  gpu_key TEXT NOT NULL UNIQUE,\n"
      "  uuid TEXT,\n"
      "  gpu_index INTEGER,\n"
      "  name TEXT,\n"
      "  serial TEXT,\n"
      "  pci_bus_id TEXT,\n"
      "  first_seen_ms INTEGER NOT NULL,\n"
      "  last_seen_ms INTEGER NOT NULL\n"
      ");\n"
      // One row per GPU per sample. time_ms: Unix time in milliseconds. Ordered by time
      // (appends at the end of the b-tree) and without a rowid, to keep rows small.
      "CREATE TABLE gpu_samples (\n"
      "  time_ms INTEGER NOT NULL,\n"
      "  gpu_id INTEGER NOT NULL REFERENCES gpus(id)" +
      gpu_sample_columns_sql(1) +
      ",\n  PRIMARY KEY (time_ms, gpu_id)\n"
      ") WITHOUT ROWID;\n"
      // One row per process per GPU per sample. Run time seen = last - first time_ms of a pid.
      "CREATE TABLE process_samples (\n"
      "  time_ms INTEGER NOT NULL,\n"
      "  gpu_id INTEGER NOT NULL REFERENCES gpus(id),\n"
      "  pid INTEGER NOT NULL,\n"
      "  name TEXT,\n"
      "  user TEXT,\n"
      "  type TEXT,\n"
      "  used_memory_bytes INTEGER,\n"
      "  PRIMARY KEY (time_ms, gpu_id, pid)\n"
      ") WITHOUT ROWID;\n";
}

std::vector<std::string> rollup_tables() { return {"gpu_samples_1m", "gpu_samples_1h"}; }

std::string schema_v2_sql() {
  // Rollups of gpu_samples (retention, store/history_retention.hpp): one row per GPU per
  // minute / hour, time_ms = bucket start, samples = raw samples in it, and for every
  // recorded column <name>_min, <name>_avg (over non-NULL values), <name>_max.
  return rollup_table_sql("gpu_samples_1m") + rollup_table_sql("gpu_samples_1h");
}

std::string schema_columns_sql(int version) {
  std::string sql;
  for (const auto& column : history_columns()) {
    if (column.since_schema != version) continue;
    sql += "ALTER TABLE gpu_samples ADD COLUMN " + column.name + " " + column.sql_type + ";\n";
    for (const auto& table : rollup_tables()) {
      for (const char* suffix : kRollupSuffixes) {
        sql += "ALTER TABLE " + table + " ADD COLUMN " + column.name + suffix + " REAL;\n";
      }
    }
  }
  return sql;
}

// Alerts (src/alerts): the latest state of each alert by fingerprint (what a restart restores:
// a firing alert stays firing and is not notified again), and every transition.
std::string schema_v6_sql() {
  return "CREATE TABLE alerts (\n"
         "  fingerprint TEXT PRIMARY KEY,\n"
         "  rule TEXT NOT NULL,\n"
         "  severity TEXT NOT NULL,\n"
         "  state TEXT NOT NULL,\n"            // pending, firing, resolved
         "  gpu INTEGER,\n"                    // NULL: a node alert
         "  value REAL,\n"
         "  active_since_ms INTEGER NOT NULL,\n"
         "  fired_ms INTEGER,\n"
         "  resolved_ms INTEGER,\n"
         "  updated_ms INTEGER NOT NULL,\n"
         "  alert TEXT NOT NULL\n"             // the whole alert as JSON (alerts/alert_json.hpp)
         ");\n"
         "CREATE INDEX alerts_updated ON alerts(updated_ms);\n"
         "CREATE TABLE alert_events (\n"
         "  id INTEGER PRIMARY KEY,\n"
         "  time_ms INTEGER NOT NULL,\n"
         "  fingerprint TEXT NOT NULL,\n"
         "  kind TEXT NOT NULL,\n"             // firing, repeat, resolved
         "  rule TEXT NOT NULL,\n"
         "  severity TEXT NOT NULL,\n"
         "  gpu INTEGER,\n"
         "  value REAL,\n"
         "  alert TEXT NOT NULL\n"             // the alert as JSON at the event
         ");\n"
         "CREATE INDEX alert_events_time ON alert_events(time_ms);\n";
}

// The notification delivery queue (src/notify): one row per message per channel; a row is
// delivered once (delivered_ms set after the receiver accepted it) and retried with backoff.
std::string schema_v7_sql() {
  return "CREATE TABLE deliveries (\n"
         "  id INTEGER PRIMARY KEY,\n"
         "  channel TEXT NOT NULL,\n"
         "  created_ms INTEGER NOT NULL,\n"
         "  payload TEXT NOT NULL,\n"          // the message (JSON), channel-independent
         "  attempts INTEGER NOT NULL DEFAULT 0,\n"
         "  next_attempt_ms INTEGER NOT NULL,\n"
         "  sending_ms INTEGER,\n"            // an attempt started (cleared when it ends): set at start-up = cut short
         "  status INTEGER,\n"                // the receiver's last answer: HTTP status, SMTP reply, exit status
         "  delivered_ms INTEGER,\n"
         "  failed_ms INTEGER,\n"              // given up
         "  last_error TEXT\n"
         ");\n"
         "CREATE INDEX deliveries_pending ON deliveries(delivered_ms, failed_ms, next_attempt_ms);\n";
}

// Each GPU's vendor (core::to_string(core::Vendor)): a file recorded before AMD and Intel GPUs
// were monitored holds NVIDIA's GPUs only, hence the default.
std::string schema_v15_sql() { return "ALTER TABLE gpus ADD COLUMN vendor TEXT NOT NULL DEFAULT 'nvidia';\n"; }

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> list = {
      {1, "gpus, gpu_samples, process_samples", schema_v1_sql()},
      {2, "gpu_samples_1m, gpu_samples_1h (rollups)", schema_v2_sql()},
      {3, "rollup counts and energy counter columns (store/rollup_counts.hpp)", schema_v3_sql()},
      {4, "sources: real or simulated, and which scenario (store/data_sources.hpp)", schema_v4_sql()},
      {5, "GPU limits and PCIe link per sample: clocks.max.sm, temperature.gpu.slowdown, power.default_limit, "
          "pcie.link.gen/width current and max (history_columns.def)",
       schema_columns_sql(5)},
      {6, "alerts: every alert's latest state, and its history (store/alert_log.hpp)", schema_v6_sql()},
      {7, "deliveries: the notification queue (store/delivery_queue.hpp)", schema_v7_sql()},
      {8, "jobs, job_steps: the jobs of `gpuwatch run` and their steps (store/jobs.hpp)", schema_v8_sql()},
      {9, "xid_events: the driver's Xid error events as recorded (store/xid_log.hpp)", schema_v9_sql()},
      {10, "process_owners: the container, pod or Slurm job of each GPU process over time (store/process_owners.hpp)",
       schema_v10_sql()},
      {11, "process_commands: the command line of each GPU process, once per span (store/process_commands.hpp)",
       schema_v11_sql()},
      {12, "imports, gpu_lost_events: the logs brought in by `gpuwatch import` and the GPUs they show lost "
           "(store/imports.hpp)",
       schema_v12_sql()},
      {13, "jobs: an index of unfinished jobs; their monitor's pid and start are columns add_job_monitor_columns "
           "adds (store/jobs.hpp)",
       "CREATE INDEX IF NOT EXISTS jobs_end ON jobs(end_ms);\n"},
      {14, "utilization.gpu.idle_share and .idle_gaps per sample: the driver's sample buffer summarised "
           "(history_columns.def)",
       schema_columns_sql(14)},
      {15, "gpus.vendor: whose GPU it is (nvidia, amd, intel); older rows are NVIDIA's", schema_v15_sql()},
      {16, "host_samples (one column per host_signals::host_fields() key), its rollups host_samples_1m/_1h, and "
           "host_process_trees: the host beside the GPUs at each sample (store/host_history.hpp)",
       schema_v16_sql()},
  };
  return list;
}

int latest_schema_version() { return migrations().back().version; }

core::Result<int> migrate(SQLite::Database& db) {
  try {
    int version = db.execAndGet("PRAGMA user_version").getInt();
    if (version > latest_schema_version()) {
      return core::make_error("history database has schema version " + std::to_string(version) +
                                  ", newer than this gpuwatch knows (" + std::to_string(latest_schema_version()) +
                                  "): upgrade gpuwatch",
                              1);
    }
    for (const auto& migration : migrations()) {
      if (migration.version <= version) continue;
      SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
      // Re-read under the write lock: another process may have migrated meanwhile.
      if (db.execAndGet("PRAGMA user_version").getInt() >= migration.version) continue;
      db.exec(without_existing_columns(db, migration.sql));
      db.exec("PRAGMA user_version = " + std::to_string(migration.version));
      transaction.commit();
      version = migration.version;
    }
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    add_missing_sample_columns(db);
    add_missing_host_columns(db);  // a host field added after schema 16
    add_job_monitor_columns(db);  // idempotent (a file whose user_version was set back still opens)
    transaction.commit();
    return db.execAndGet("PRAGMA user_version").getInt();
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot migrate the history database: ") + e.what(), 1);
  }
}

void show_missing_columns_as_null(SQLite::Database& db) {
  auto view = [&](const std::string& table, const std::vector<std::string>& wanted) {
    const auto names = existing_columns(db, table);
    if (names.empty()) return;  // no such table in this file
    std::string nulls;
    for (const auto& name : wanted) {
      if (names.count(name) == 0) nulls += ", NULL AS " + name;
    }
    // Rows of a time no clock gave are left out too (store/untrusted_file.hpp); a flattened
    // view: the readers' range scans still use the primary key.
    db.exec("CREATE TEMP VIEW " + table + " AS SELECT *" + nulls + " FROM main." + table + " WHERE 1" +
            sane_time_sql("time_ms"));
  };
  std::vector<std::string> sample_columns, rollup_columns;
  for (const auto& column : history_columns()) {
    sample_columns.push_back(column.name);
    for (const char* suffix : kRollupSuffixes) rollup_columns.push_back(column.name + suffix);
  }
  view("gpu_samples", sample_columns);
  for (const auto& table : rollup_tables()) view(table, rollup_columns);
  view("process_samples", {});
  // The host (schema 16): a host field newer than the file reads as NULL; no table, no view.
  view("host_samples", host_sample_columns());
  view("host_process_trees", {});
  // gpus.vendor (schema 15): a file from before it holds NVIDIA's GPUs only.
  const auto gpu_columns = existing_columns(db, "gpus");
  if (!gpu_columns.empty() && gpu_columns.count("vendor") == 0) {
    db.exec("CREATE TEMP VIEW gpus AS SELECT *, 'nvidia' AS vendor FROM main.gpus");
  }
}

}  // namespace gpuwatch::store
