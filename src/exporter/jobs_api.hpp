#pragma once
// GET /api/v1/jobs[?limit=N] (issue 29, docs/api.md): the jobs `gpuwatch run` recorded in serve's
// database, newest first, as `gpuwatch history --jobs --format json` lists them. The seam between
// the route and the database (serve wires in recorder/store_jobs.hpp), the limit, parsed and
// bounded, and the answer's JSON. Pure but for the reader.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "store/jobs.hpp"  // JobRow: a plain value type (the store's SQLite stays in store/)

namespace gpuwatch::exporter {

inline constexpr std::size_t kDefaultJobsLimit = 50;
inline constexpr std::size_t kMaxJobsLimit = 1000;

// The newest LIMIT jobs, their lost monitors marked (history/lost_monitors.hpp). Errors: code
// kJobsBusy (busy, too slow, stopping: try again), anything else a failure to read.
inline constexpr int kJobsBusy = 503;
using JobsReader = std::function<core::Result<std::vector<store::JobRow>>(std::size_t limit)>;

// ?limit= ("" when absent: kDefaultJobsLimit): a whole number 1..kMaxJobsLimit.
core::Result<std::size_t> parse_jobs_limit(std::string_view limit);

// {"jobs": [history::render_jobs(JOBS, Json, NOW)], "limit": LIMIT, "recording": true}
std::string jobs_api_json(const std::vector<store::JobRow>& jobs, std::size_t limit,
                          std::chrono::system_clock::time_point now);
// Without a database (serve --no-record): {"jobs": null, "limit": LIMIT, "recording": false,
// "reason": "no history database (serve --no-record): jobs need one"}.
std::string jobs_unrecorded_json(std::size_t limit);

}  // namespace gpuwatch::exporter
