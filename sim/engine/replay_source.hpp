#pragma once
// Recorded series a `replay` phase plays: an nvidia-smi --query-gpu CSV log (one row
// per GPU per sample, e.g. written with -l), a trace CSV with the columns
// timestamp,gpu_index,temperature_C,utilization_gpu_percent,power_W, or gpuwatch's own
// logs (`record --csv/--jsonl`, `history --format csv/jsonl`: a leading "time" column).
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "sim/engine/scenario.hpp"

namespace gpuwatch::sim {

struct RecordedSeries {
  std::vector<std::vector<ReplayRow>> per_gpu;  // rows by GPU (file order of GPU index)
};

// CSV (nvidia-smi's log, the traces, `gpuwatch record --csv` / `history --format csv`),
// or, when the text starts with '{', JSONL (`gpuwatch record --jsonl` / `history --format jsonl`).
core::Result<RecordedSeries> read_recorded_series(std::string_view csv_text);
core::Result<RecordedSeries> read_recorded_jsonl(std::string_view jsonl_text);
core::Result<RecordedSeries> load_recorded_series(const std::string& path);

// Splits one CSV line (nvidia-smi style: ", " separated, optional quotes).
std::vector<std::string> split_csv_line(std::string_view line);
// "2026/07/14 08:12:53.353" or "2025-09-24T03:41:43.487Z" -> seconds since the epoch.
bool parse_timestamp(std::string_view text, double& seconds);

}  // namespace gpuwatch::sim
