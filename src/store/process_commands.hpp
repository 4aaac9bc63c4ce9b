#pragma once
// What each GPU process was (schema 11: table process_commands): its command line from
// /proc/PID/cmdline, kept once per span, not once per sample. NVML names a training job
// `python`; the command line says `python train.py` or `python eval_server.py`, which is what
// `history --processes` and `report` need to tell them apart.
//
// A table of its own, not a column of process_owners (schema 10), because owner spans are kept
// only for processes with an owner found (and not at all with --attribution off), while every
// process has a command line; and not a column of process_samples, which would repeat the same
// string every sample (a day of one job: 86,400 copies). One row per span of one process on one
// GPU with one command, extended every sample (upserted by gpu_key, pid, first_ms, as
// process_owners); a new span when the command changes (exec, PID reuse) or when the process
// comes back after a sample without it. Pruned with the raw samples (store/history_retention.cpp):
// the process listings it serves are read from process_samples, which go then too.
//
// An unknown command (the process already gone from /proc, another PID namespace, kernel
// threads, `--no-record-commands`) has no row: absent, never an empty string. Times in Unix ms.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::store {

// The longest command stored, in bytes (a huge argv must not bloat the file).
inline constexpr std::size_t kMaxCommandBytes = 1024;
// How much of it a table shows (history --processes, the report's text and HTML tables; CSV,
// JSON and the HTML cell's tooltip carry all of it).
inline constexpr std::size_t kCommandShownBytes = 80;

// COMMAND cut to at most MAX_BYTES bytes on a UTF-8 character boundary, ending in "…" when
// cut. Invalid UTF-8 is kept as it is (the JSON writers replace it, core/json_text.hpp).
std::string clip_command(const std::string& command, std::size_t max_bytes = kMaxCommandBytes);

struct CommandSpanRow {
  std::string gpu_key;  // the GPU's UUID, else "pci:..." or "index:N" (as the gpus table)
  std::uint32_t pid = 0;
  std::int64_t first_ms = 0, last_ms = 0;  // first and last sample of the span
  std::string command;                     // clipped (clip_command), never empty
  bool operator==(const CommandSpanRow&) const = default;
};

// Migration 11: table process_commands, unique per (gpu_key, pid, first_ms), indexed by last_ms
// (retention).
std::string schema_v11_sql();

// Inserts ROWS (their command clipped; a row with an empty command is skipped), or moves the end
// of a row already written (same gpu_key, pid and first_ms) to its new last_ms: writing the same
// span again is harmless. One transaction.
core::Result<void> write_command_spans(HistoryDatabase& db, const std::vector<CommandSpanRow>& rows);

// The spans that overlap SINCE..UNTIL (nullopt: open), by gpu_key, pid and first_ms. A file
// written before schema 11 has none: an empty list, not an error.
core::Result<std::vector<CommandSpanRow>> read_command_spans(const HistoryDatabase& db,
                                                             std::optional<std::int64_t> since_ms = std::nullopt,
                                                             std::optional<std::int64_t> until_ms = std::nullopt);

// The spans of each (gpu_key, pid), for looking up the command at a sample time (pure).
class CommandIndex {
 public:
  explicit CommandIndex(std::vector<CommandSpanRow> spans);
  // The command of PID on GPU_KEY at TIME_MS (a sample time of the span): nullptr when none
  // was recorded.
  const std::string* at(const std::string& gpu_key, std::uint32_t pid, std::int64_t time_ms) const;
  // The same in two steps, for a scan that looks up one process many times: its spans (nullptr:
  // none), then the command at TIME_MS among them.
  const std::vector<CommandSpanRow>* spans_of(const std::string& gpu_key, std::uint32_t pid) const;
  static const std::string* at(const std::vector<CommandSpanRow>* spans, std::int64_t time_ms);
  bool empty() const { return spans_.empty(); }

 private:
  std::map<std::pair<std::string, std::uint32_t>, std::vector<CommandSpanRow>> spans_;  // by first_ms
};

}  // namespace gpuwatch::store
