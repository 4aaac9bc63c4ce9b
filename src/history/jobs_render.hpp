#pragma once
// `gpuwatch history --jobs`: the jobs `gpuwatch run` recorded, newest first, as a table, CSV or
// JSON (one array; each job with its command, GPUs and stored summary). Pure functions.
#include <chrono>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/jobs.hpp"

namespace gpuwatch::history {

enum class JobsFormat { Table, Csv, Json };
core::Result<JobsFormat> parse_jobs_format(const std::string& text);  // table, csv, json

// NOW: for the run time of a job without an end (still running, or `gpuwatch run` died).
std::string render_jobs(const std::vector<store::JobRow>& jobs, JobsFormat format, std::chrono::system_clock::time_point now);

}  // namespace gpuwatch::history
