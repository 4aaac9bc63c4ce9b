#pragma once
// Logs brought in by `gpuwatch import` (migration 12): one row per imported file in `imports`
// (its name, format, time span, GPUs and rows; re-importing a file updates its row, and its
// samples replace themselves through gpu_samples' key), and `gpu_lost_events`: when a log shows
// a GPU that stopped reporting (nvidia-smi dmon's K80s after Xid 79), the time it was lost.
// The recorded diagnosis replays those as a lost GPU (history/findings.cpp); a file older than
// schema 12 has neither table: no imports, no lost events (not an error).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::store {

struct ImportRecord {
  std::string file;    // the log's file name (its last path component; "stdin" for "-")
  std::string format;  // "nvidia-smi csv", "nvidia-smi dmon", ...
  std::int64_t first_ms = 0, last_ms = 0;
  std::int64_t gpus = 0, rows = 0;
  std::int64_t imported_ms = 0;  // when gpuwatch import ran
};

struct LostGpuRow {
  std::int64_t time_ms = 0;
  unsigned gpu = 0;      // the GPU's index (gpus.gpu_index)
  std::string gpu_key;   // gpus.gpu_key
};

// Migration 12: tables imports and gpu_lost_events.
std::string schema_v12_sql();

// Inserts or updates (by file name) the file's record.
core::Result<void> write_import_record(HistoryDatabase& db, const ImportRecord& record);
// Records that the GPU with GPU_KEY (already in `gpus`) was lost at TIME_MS; idempotent.
core::Result<void> write_lost_gpu(HistoryDatabase& db, const std::string& gpu_key, std::int64_t time_ms);

// Imports whose span overlaps [since, until] (nullopt: open), oldest first.
core::Result<std::vector<ImportRecord>> read_import_records(const HistoryDatabase& db, std::optional<std::int64_t> since_ms = {},
                                                            std::optional<std::int64_t> until_ms = {});
// Lost events with SINCE_MS <= time_ms <= UNTIL_MS, oldest first.
core::Result<std::vector<LostGpuRow>> read_lost_gpus(const HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                     std::optional<std::int64_t> until_ms);

}  // namespace gpuwatch::store
