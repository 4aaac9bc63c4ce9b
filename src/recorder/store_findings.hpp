#pragma once
// serve's /api/v1/findings, from the history database (issue 23): the range is replayed
// through the diagnose engine and grouped (history/findings.hpp), on a read-only connection
// of its own (WAL: the recorder's writes never block it), opened on first use and kept. One
// diagnosis runs at a time (a second request is told the database is busy: 503); the reads
// of one are cut off after TIME_BUDGET, or as soon as STOPPING turns true, so neither a long
// range nor serve's shutdown waits on it.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "exporter/recorded_findings.hpp"

namespace gpuwatch::recorder {

exporter::RecordedFindingsReader make_store_findings_reader(std::string db_path, std::chrono::milliseconds time_budget,
                                                            std::shared_ptr<const std::atomic<bool>> stopping = {});

}  // namespace gpuwatch::recorder
