#include "exporter/history_window.hpp"

#include <limits>
#include <utility>

#include "exporter/history_merge.hpp"

namespace gpuwatch::exporter {

double window_since_s(const HistoryWindowQuery& query) {
  return query.seconds ? query.now_s - *query.seconds : -std::numeric_limits<double>::infinity();
}

HistoryWindow history_window(const live::SampleHistory& ring, const StoredHistoryReader& stored,
                             const HistoryWindowQuery& query) {
  HistoryWindow out;
  const double since = window_since_s(query);
  const double interval_s = query.interval_s;
  const StoredHistoryQuery store_query{since, query.now_s, query.gpu, query.max_stored_points, interval_s};
  // Beyond the ring buffer's span: the store, averaged into buckets (same shape).
  const bool beyond_ring = query.seconds && *query.seconds > static_cast<double>(ring.capacity()) * interval_s;
  if (beyond_ring && stored) {
    auto answer = stored(store_query);
    if (answer) {
      out.origin.source = "store";
      out.origin.resolution_s = answer->resolution_s;
      out.rows = std::move(answer->rows);
      return out;
    }
    out.origin.store_error = answer.error().message;  // answer from memory, and say why
  }
  out.rows = ring.rows_since(since, query.gpu);
  // Inside the span, but from before what the ring holds (serve started recently): the store's
  // older rows, then the ring's. A full ring always reaches back its span (its oldest row is
  // under one interval after the span's start: 1.5 intervals of slack).
  if (!beyond_ring && query.seconds && stored && !ring_reaches(out.rows, query.gpus, since, 1.5 * interval_s)) {
    auto answer = stored(store_query);
    if (!answer) {
      out.origin.store_error = answer.error().message;
    } else if (auto joined = stored_then_live(answer->rows, answer->resolution_s, out.rows); joined.size() > out.rows.size()) {
      out.origin.source = "store";  // some rows are the store's (a fresh file holds only the ring's own)
      out.origin.resolution_s = answer->resolution_s;
      out.rows = std::move(joined);
    }
  }
  return out;
}

}  // namespace gpuwatch::exporter
