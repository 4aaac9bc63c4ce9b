#include "store/jobs.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <fmt/core.h>

#include "store/sql_values.hpp"
#include "store/untrusted_file.hpp"

namespace gpuwatch::store {
namespace {

bool has_jobs_table(const HistoryDatabase& db) {
  return db.sql().execAndGet("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'jobs'").getInt() > 0;
}

bool has_monitor_columns(const HistoryDatabase& db) {
  return db.sql().execAndGet("SELECT count(*) FROM pragma_table_info('jobs') WHERE name = 'monitor_pid'").getInt() > 0;
}

// The columns read_job reads, each bounded (kMaxJob*) and its times sane (store/untrusted_file.hpp):
// a file whose jobs table lacks the monitor columns (written before issue 31) reads them as NULL.
std::string job_columns(const HistoryDatabase& db) {
  auto clip = [](const char* column, std::size_t chars) {
    return fmt::format("substr({}, 1, {})", column, chars);
  };
  const bool monitor = has_monitor_columns(db);
  const std::string sane_end = reader_time_sql(db.sql().getHandle(), "end_ms");
  return fmt::format("id, {}, {}, {}, {}, start_ms, CASE WHEN 1{} THEN end_ms END, exit_status, {}, {}, {}",
                     clip("name", kMaxJobWordChars), clip("command", kMaxJobCommandChars), clip("user", kMaxJobWordChars),
                     clip("host", kMaxJobWordChars), sane_end, clip("gpus", kMaxJobJsonChars),
                     clip("summary", kMaxJobJsonChars),
                     monitor ? "monitor_pid, monitor_start_ticks, monitor_lost_ms" : "NULL, NULL, NULL");
}

JobRow read_job(SQLite::Statement& select) {
  JobRow row;
  row.id = select.getColumn(0).getInt64();
  row.name = select.getColumn(1).getString();
  row.command = select.getColumn(2).getString();
  row.user = select.getColumn(3).getString();
  row.host = select.getColumn(4).getString();
  row.start_ms = select.getColumn(5).getInt64();
  row.end_ms = optional_int64(select.getColumn(6));
  row.exit_status = optional_int64(select.getColumn(7));
  row.gpus = select.getColumn(8).getString();
  row.summary = select.getColumn(9).isNull() ? "" : select.getColumn(9).getString();
  row.monitor_pid = optional_int64(select.getColumn(10));
  row.monitor_start_ticks = optional_int64(select.getColumn(11));
  row.monitor_lost_noticed_ms = optional_int64(select.getColumn(12));
  return row;
}

core::Error failure(const char* what, const SQLite::Exception& e) {
  return core::make_error(std::string(what) + ": " + e.what(), 1);
}

}  // namespace

std::string schema_v8_sql() {
  return "CREATE TABLE jobs (\n"
         "  id INTEGER PRIMARY KEY,\n"
         "  name TEXT NOT NULL,\n"
         "  command TEXT NOT NULL,\n"          // JSON array of the argv
         "  user TEXT NOT NULL,\n"
         "  host TEXT NOT NULL,\n"
         "  start_ms INTEGER NOT NULL,\n"
         "  end_ms INTEGER,\n"                 // NULL: running, or gpuwatch run died
         "  exit_status INTEGER,\n"
         "  gpus TEXT NOT NULL,\n"             // JSON: [{index, uuid, mig_uuids}]
         "  summary TEXT\n"                    // JSON (jobs/job_summary.hpp)
         ");\n"
         "CREATE INDEX jobs_start ON jobs(start_ms);\n"
         "CREATE TABLE job_steps (\n"
         "  job_id INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,\n"
         "  step INTEGER NOT NULL,\n"
         "  time_s REAL NOT NULL,\n"
         "  data_wait_s REAL NOT NULL,\n"
         "  compute_s REAL NOT NULL,\n"
         "  loss REAL,\n"
         "  allocated_bytes INTEGER,\n"
         "  reserved_bytes INTEGER,\n"
         "  num_alloc_retries INTEGER,\n"
         "  num_ooms INTEGER\n"
         ");\n"
         "CREATE INDEX job_steps_job ON job_steps(job_id, step);\n";
}

void add_job_monitor_columns(SQLite::Database& db) {
  if (db.execAndGet("SELECT count(*) FROM pragma_table_info('jobs')").getInt() == 0) return;  // no jobs table
  for (const char* column : {"monitor_pid",            // the `gpuwatch run` process
                             "monitor_start_ticks",    // its start (/proc/PID/stat field 22)
                             "monitor_lost_ms"}) {     // when its loss was said
    const bool present = db.execAndGet(fmt::format("SELECT count(*) FROM pragma_table_info('jobs') WHERE name = '{}'", column))
                             .getInt() > 0;
    if (!present) db.exec(fmt::format("ALTER TABLE jobs ADD COLUMN {} INTEGER", column));
  }
}

core::Result<std::int64_t> insert_job(HistoryDatabase& db, const JobRow& row) {
  try {
    SQLite::Statement insert(db.sql(),
                             "INSERT INTO jobs (name, command, user, host, start_ms, gpus, monitor_pid, monitor_start_ticks) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    insert.bind(1, row.name);
    insert.bind(2, row.command);
    insert.bind(3, row.user);
    insert.bind(4, row.host);
    insert.bind(5, static_cast<std::int64_t>(row.start_ms));
    insert.bind(6, row.gpus);
    if (row.monitor_pid) insert.bind(7, static_cast<std::int64_t>(*row.monitor_pid));
    if (row.monitor_start_ticks) insert.bind(8, static_cast<std::int64_t>(*row.monitor_start_ticks));
    insert.exec();
    return static_cast<std::int64_t>(db.sql().getLastInsertRowid());
  } catch (const SQLite::Exception& e) {
    return failure("cannot record the job in the history database", e);
  }
}

core::Result<void> finish_job(HistoryDatabase& db, std::int64_t id, std::int64_t end_ms, std::int64_t exit_status,
                              const std::string& gpus_json, const std::string& summary_json) {
  try {
    SQLite::Statement update(db.sql(), "UPDATE jobs SET end_ms = ?, exit_status = ?, gpus = ?, summary = ? WHERE id = ?");
    update.bind(1, static_cast<std::int64_t>(end_ms));
    update.bind(2, static_cast<std::int64_t>(exit_status));
    update.bind(3, gpus_json);
    update.bind(4, summary_json);
    update.bind(5, static_cast<std::int64_t>(id));
    if (update.exec() != 1) return core::make_error("job " + std::to_string(id) + " is not in the history database");
    return {};
  } catch (const SQLite::Exception& e) {
    return failure("cannot record the job's end in the history database", e);
  }
}

core::Result<void> insert_job_steps(HistoryDatabase& db, std::int64_t id, const std::vector<JobStepRow>& steps) {
  try {
    SQLite::Transaction transaction(db.sql(), SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement insert(db.sql(),
                             "INSERT INTO job_steps (job_id, step, time_s, data_wait_s, compute_s, loss, allocated_bytes, "
                             "reserved_bytes, num_alloc_retries, num_ooms) VALUES (:job, :step, :t, :wait, :compute, :loss, "
                             ":alloc, :reserved, :retries, :ooms)");
    for (const auto& s : steps) {
      insert.bind(":job", static_cast<std::int64_t>(id));
      insert.bind(":step", static_cast<std::int64_t>(s.step));
      insert.bind(":t", s.time_s);
      insert.bind(":wait", s.data_wait_s);
      insert.bind(":compute", s.compute_s);
      bind_optional(insert, ":loss", s.loss);
      bind_optional(insert, ":alloc", s.allocated_bytes);
      bind_optional(insert, ":reserved", s.reserved_bytes);
      bind_optional(insert, ":retries", s.num_alloc_retries);
      bind_optional(insert, ":ooms", s.num_ooms);
      insert.exec();
      insert.reset();
    }
    transaction.commit();
    return {};
  } catch (const SQLite::Exception& e) {
    return failure("cannot record the job's steps in the history database", e);
  }
}

core::Result<std::vector<JobRow>> unfinished_jobs(HistoryDatabase& db) {
  try {
    std::vector<JobRow> out;
    if (!has_jobs_table(db) || !has_monitor_columns(db)) return out;
    SQLite::Statement select(db.sql(), "SELECT " + job_columns(db) +
                                           " FROM jobs WHERE end_ms IS NULL AND monitor_lost_ms IS NULL AND monitor_pid IS NOT "
                                           "NULL ORDER BY start_ms DESC, id DESC LIMIT 100");
    while (select.executeStep()) out.push_back(read_job(select));
    return out;
  } catch (const SQLite::Exception& e) {
    return failure("cannot read the jobs from the history database", e);
  }
}

core::Result<void> note_monitor_lost(HistoryDatabase& db, std::int64_t id, std::int64_t noticed_ms) {
  try {
    SQLite::Statement update(db.sql(), "UPDATE jobs SET monitor_lost_ms = ? WHERE id = ? AND monitor_lost_ms IS NULL");
    update.bind(1, static_cast<std::int64_t>(noticed_ms));
    update.bind(2, static_cast<std::int64_t>(id));
    update.exec();
    return {};
  } catch (const SQLite::Exception& e) {
    return failure("cannot record the job's lost monitor in the history database", e);
  }
}

core::Result<std::vector<JobRow>> list_jobs(HistoryDatabase& db, std::size_t limit) {
  try {
    std::vector<JobRow> out;
    if (!has_jobs_table(db)) return out;
    std::string sql = "SELECT " + job_columns(db) + " FROM jobs WHERE 1" + reader_time_sql(db.sql().getHandle(), "start_ms") +
                      " ORDER BY start_ms DESC, id DESC";
    sql += " LIMIT " + std::to_string(limit > 0 ? std::min(limit, kMaxJobsListed) : kMaxJobsListed);
    SQLite::Statement select(db.sql(), sql);
    while (select.executeStep()) out.push_back(read_job(select));
    return out;
  } catch (const SQLite::Exception& e) {
    return failure("cannot read the jobs from the history database", e);
  }
}

core::Result<std::optional<JobRow>> find_job(HistoryDatabase& db, std::int64_t id) {
  try {
    if (!has_jobs_table(db)) return std::optional<JobRow>();
    SQLite::Statement select(db.sql(), "SELECT " + job_columns(db) + " FROM jobs WHERE id = ?" +
                                           reader_time_sql(db.sql().getHandle(), "start_ms"));
    select.bind(1, static_cast<std::int64_t>(id));
    if (!select.executeStep()) return std::optional<JobRow>();
    return std::optional<JobRow>(read_job(select));
  } catch (const SQLite::Exception& e) {
    return failure("cannot read the job from the history database", e);
  }
}

core::Result<std::vector<JobStepRow>> job_steps(HistoryDatabase& db, std::int64_t id) {
  try {
    std::vector<JobStepRow> out;
    if (!has_jobs_table(db)) return out;
    SQLite::Statement select(db.sql(),
                             "SELECT step, time_s, data_wait_s, compute_s, loss, allocated_bytes, reserved_bytes, "
                             "num_alloc_retries, num_ooms FROM job_steps WHERE job_id = ? ORDER BY step");
    select.bind(1, static_cast<std::int64_t>(id));
    while (select.executeStep()) {
      JobStepRow s;
      s.step = select.getColumn(0).getInt64();
      s.time_s = select.getColumn(1).getDouble();
      s.data_wait_s = select.getColumn(2).getDouble();
      s.compute_s = select.getColumn(3).getDouble();
      if (!select.getColumn(4).isNull()) s.loss = select.getColumn(4).getDouble();
      s.allocated_bytes = optional_int64(select.getColumn(5));
      s.reserved_bytes = optional_int64(select.getColumn(6));
      s.num_alloc_retries = optional_int64(select.getColumn(7));
      s.num_ooms = optional_int64(select.getColumn(8));
      out.push_back(s);
    }
    return out;
  } catch (const SQLite::Exception& e) {
    return failure("cannot read the job's steps from the history database", e);
  }
}

}  // namespace gpuwatch::store
