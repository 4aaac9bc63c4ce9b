#pragma once
// serve's /api/v1/jobs, from the history database (issue 29): the jobs `gpuwatch run` recorded,
// newest first, with the jobs whose `gpuwatch run` died marked "monitor lost" as `gpuwatch
// history --jobs` marks them (history/lost_monitors.hpp). A read-only connection of its own
// (WAL: the recorder's writes never block it), opened on first use and kept; one read at a time
// (a second request is told the database is busy); a read is cut off after TIME_BUDGET, or as
// soon as STOPPING turns true.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "exporter/jobs_api.hpp"

namespace gpuwatch::recorder {

exporter::JobsReader make_store_jobs_reader(std::string db_path, std::chrono::milliseconds time_budget,
                                            std::shared_ptr<const std::atomic<bool>> stopping = {});

}  // namespace gpuwatch::recorder
