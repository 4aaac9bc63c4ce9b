#pragma once
// The rows that answer a window of recent history, shared by /api/v1/history and /api/v1/energy
// (one choice of source for both, so the energy of a range is computed from exactly the rows the
// charts draw): the ring buffer; the store (averaged buckets) beyond the ring's span; or, inside
// the span when the ring does not reach back (serve started recently), the store's older rows
// joined to the ring's. A store that cannot answer leaves the ring's rows and says why.
#include <cstddef>
#include <optional>
#include <vector>

#include "exporter/json_api.hpp"  // HistoryOrigin
#include "exporter/stored_history.hpp"
#include "live/sample_history.hpp"

namespace gpuwatch::exporter {

struct HistoryWindowQuery {
  std::optional<double> seconds;  // nullopt: everything the ring holds (the store is not asked)
  std::optional<unsigned> gpu;    // nullopt: every GPU
  std::vector<unsigned> gpus;     // the GPUs answered (GPU alone, or all of them)
  double now_s = 0;               // Unix seconds: the window ends here
  double interval_s = 1;          // the sampling interval
  std::size_t max_stored_points = 1000;  // per GPU, from the store
};

struct HistoryWindow {
  std::vector<live::HistoryRow> rows;  // per GPU in time order, GPUs in index order
  HistoryOrigin origin;
};

// The window's start: now - seconds, or -infinity without seconds.
double window_since_s(const HistoryWindowQuery& query);

// STORED may be null (serve --no-record): the ring alone.
HistoryWindow history_window(const live::SampleHistory& ring, const StoredHistoryReader& stored,
                             const HistoryWindowQuery& query);

}  // namespace gpuwatch::exporter
