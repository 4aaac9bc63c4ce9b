#pragma once
// The jobs `gpuwatch run` recorded (schema 8: tables jobs and job_steps) and the steps the job's
// Python Monitor wrote. A job is inserted when it starts (end NULL) and finished when it ends, so
// a crashed `gpuwatch run` leaves a job without an end. Times in Unix ms; NULL is absent.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/history_database.hpp"

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
};

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

// Every job, newest first (at most LIMIT; 0: all). A database older than schema 8 has none.
core::Result<std::vector<JobRow>> list_jobs(HistoryDatabase& db, std::size_t limit = 0);
// Job ID; nullopt when there is none.
core::Result<std::optional<JobRow>> find_job(HistoryDatabase& db, std::int64_t id);
// The steps of job ID, by step.
core::Result<std::vector<JobStepRow>> job_steps(HistoryDatabase& db, std::int64_t id);

// SQL of migration 8 (store/migrations.cpp).
std::string schema_v8_sql();

}  // namespace gpuwatch::store
