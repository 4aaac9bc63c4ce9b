#pragma once
// The series of a /metrics body (Prometheus text format 0.0.4, as exporter::encode_prometheus
// writes it) as remote-write time series: the pushed series are exactly the scraped ones. Pure.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "push/write_request.hpp"

namespace gpuwatch::push {

// One TimeSeries per sample line, stamped TIMESTAMP_MS, with __name__ and the line's labels plus
// EXTRA_LABELS (the external labels) where the line has no label of that name. Comment and
// malformed lines are skipped.
std::vector<TimeSeries> series_from_exposition(std::string_view text, std::int64_t timestamp_ms,
                                               const std::vector<Label>& extra_labels);

// One GPU's latest sample as the live view knows it.
struct GpuSampleTime {
  std::string gpu;            // the `gpu` label's value (the device index)
  std::int64_t taken_ms = 0;  // when its latest sample started, ms since the epoch; 0: no sample yet (down)
  bool up = false;            // that sample is fresh and the device Ok
};

// Restamps the series of each GPU in GPUS (by their `gpu` label) with the time its sample was
// taken rather than the push's NOW_MS (which stays on the other series). A series' timestamps
// never go back nor repeat, since a receiver refuses both (LAST_PUSHED_MS: per GPU, the stamp of
// its previous push, updated here):
//  - a sample newer than the last pushed one: stamped with its time;
//  - the same sample again while the GPU is up (the push came before the next sample): 1 ms after
//    its previous stamp, the same values;
//  - the same sample again (or none yet) while the GPU is down (stale, lost): stamped at NOW_MS,
//    so that gpuwatch_up 0 reaches the receiver at the time it is true.
void stamp_gpu_series(std::vector<TimeSeries>& series, const std::vector<GpuSampleTime>& gpus, std::int64_t now_ms,
                      std::map<std::string, std::int64_t>& last_pushed_ms);

}  // namespace gpuwatch::push
