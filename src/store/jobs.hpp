#pragma once
// The jobs `gpuwatch run` recorded (schema 8: tables jobs and job_steps) and the steps the job's
// Python Monitor wrote. A job is inserted when it starts (end NULL) and finished when it ends, so
// a crashed `gpuwatch run` leaves a job without an end. Times in Unix ms; NULL is absent.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/history_database.hpp"

namespace SQLite {
class Database;
}

namespace gpuwatch::store {

struct JobRow {
  std::int64_t id = 0;
  std::string name;
  std::string command;        // the command line as JSON (an array of strings)
  std::string user, host;
  std::int64_t start_ms = 0;
  std::optional<std::int64_t> end_ms;
  std::optional<std::int64_t> exit_status;
  std::string gpus = "[]";    // JSON: [{"index", "uuid", "mig_uuids"}]
  std::string summary;        // JSON (jobs/job_summary.hpp), "" until the job ended
  // Issue 31 (columns added by migrate(), see add_job_monitor_columns): the `gpuwatch run` process watching the job (its pid and start time
  // in clock ticks after boot, /proc/PID/stat field 22), so that a later reader on the same
  // host can tell it died (kill -9) while the job ran on; absent in older rows.
  std::optional<std::int64_t> monitor_pid, monitor_start_ticks;
  // When a later record/serve/run said that the job's monitor was lost (said once); absent: not yet.
  std::optional<std::int64_t> monitor_lost_noticed_ms;
  bool monitor_lost = false;  // not stored: set by a reader that found the monitor gone (history/lost_monitors.hpp)
};

// The most jobs a reader lists (newest first), and the longest text it reads of a job's
// command (JSON), name, user, host and of its GPUs and summary (JSON), in characters: a file
// is input (issue 31), and a huge value must not bloat the reader.
inline constexpr std::size_t kMaxJobsListed = 10000;
inline constexpr std::size_t kMaxJobCommandChars = 4096, kMaxJobWordChars = 256, kMaxJobJsonChars = 65536;

struct JobStepRow {
  std::int64_t step = 0;
  double time_s = 0;          // Unix seconds
  double data_wait_s = 0, compute_s = 0;
  std::optional<double> loss;
  std::optional<std::int64_t> allocated_bytes, reserved_bytes, num_alloc_retries, num_ooms;
};

// Inserts a started job (ROW.id, end_ms, exit_status and summary are ignored); returns its id.
core::Result<std::int64_t> insert_job(HistoryDatabase& db, const JobRow& row);
// Sets the end, exit status, GPUs and summary of job ID.
core::Result<void> finish_job(HistoryDatabase& db, std::int64_t id, std::int64_t end_ms, std::int64_t exit_status,
                              const std::string& gpus_json, const std::string& summary_json);
// Appends STEPS to job ID, in one transaction.
core::Result<void> insert_job_steps(HistoryDatabase& db, std::int64_t id, const std::vector<JobStepRow>& steps);

// Jobs whose end is not recorded and whose monitor loss was not said yet (the newest 100):
// candidates for history/lost_monitors.hpp.
core::Result<std::vector<JobRow>> unfinished_jobs(HistoryDatabase& db);
// Records that the loss of job ID's monitor was said at NOTICED_MS.
core::Result<void> note_monitor_lost(HistoryDatabase& db, std::int64_t id, std::int64_t noticed_ms);

// Every job, newest first (at most LIMIT; 0: kMaxJobsListed). A database older than schema 8 has none.
core::Result<std::vector<JobRow>> list_jobs(HistoryDatabase& db, std::size_t limit = 0);
// Job ID; nullopt when there is none.
core::Result<std::optional<JobRow>> find_job(HistoryDatabase& db, std::int64_t id);
// The steps of job ID, by step.
core::Result<std::vector<JobStepRow>> job_steps(HistoryDatabase& db, std::int64_t id);

// SQL of migration 8 (store/migrations.cpp).
std::string schema_v8_sql();
// Adds the monitor columns to the jobs table where they are missing (migrate() runs it after the
// numbered migrations, as for the sample columns: idempotent, unlike ALTER TABLE in a migration).
void add_job_monitor_columns(SQLite::Database& db);

}  // namespace gpuwatch::store
