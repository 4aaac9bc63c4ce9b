#pragma once
// serve's /api/v1/history beyond the ring buffer, from the history database: a
// read-only connection of its own (WAL: the recorder's writes never block it), opened on
// first use and kept; one request reads at a time (others wait up to the budget, then the
// route answers from memory), and a read is cut off after TIME_BUDGET, or as soon as
// STOPPING turns true (serve's shutdown never waits for a long read).
#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "exporter/stored_history.hpp"

namespace gpuwatch::recorder {

exporter::StoredHistoryReader make_store_history_reader(std::string db_path, std::chrono::milliseconds time_budget,
                                                        std::shared_ptr<const std::atomic<bool>> stopping = {});

}  // namespace gpuwatch::recorder
