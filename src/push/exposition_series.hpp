#pragma once
// The series of a /metrics body (Prometheus text format 0.0.4, as exporter::encode_prometheus
// writes it) as remote-write time series: the pushed series are exactly the scraped ones. Pure.
#include <cstdint>
#include <string_view>
#include <vector>

#include "push/write_request.hpp"

namespace gpuwatch::push {

// One TimeSeries per sample line, stamped TIMESTAMP_MS, with __name__ and the line's labels plus
// EXTRA_LABELS (the external labels) where the line has no label of that name. Comment and
// malformed lines are skipped.
std::vector<TimeSeries> series_from_exposition(std::string_view text, std::int64_t timestamp_ms,
                                               const std::vector<Label>& extra_labels);

}  // namespace gpuwatch::push
