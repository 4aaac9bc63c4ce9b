#pragma once
// The seam between /api/v1/history and older history kept elsewhere (serve wires in the
// SQLite store: recorder/store_history.hpp; the exporter never includes store code).
// When a request asks for more seconds than the in-memory ring buffer covers, the route
// asks this reader instead and answers in the same columnar shape.
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "core/result.hpp"
#include "live/sample_history.hpp"

namespace gpuwatch::exporter {

struct StoredHistoryQuery {
  double since_s = 0, until_s = 0;  // Unix seconds, inclusive
  std::optional<unsigned> gpu;      // nullopt: every GPU
  std::size_t max_points = 1000;    // per GPU: the reader averages samples into buckets to stay under it
  double min_resolution_s = 1;      // no finer than this (the sampling interval)
};

struct StoredHistory {
  std::vector<live::HistoryRow> rows;  // per GPU in time order (seq unused); one row per bucket with data
  double resolution_s = 0;       // bucket size (or the coarsest rollup used, when coarser)
};

// Fails (the route then answers from memory and says why) when the store cannot be read
// or the read takes too long.
using StoredHistoryReader = std::function<core::Result<StoredHistory>(const StoredHistoryQuery&)>;

}  // namespace gpuwatch::exporter
