#pragma once
// Continuity (issue 23): a live diagnosis (serve, top, run, record) starts from the recent
// recorded history, as `status` does, so a restart during trouble shows the ongoing problems at
// once instead of after the engine's windows have filled again (up to five minutes).
//
// Only the last kPrimingSpan before now is read (bounded: the cost does not grow with the
// history), and only when it can be trusted to continue into the live samples:
//   - the database has a sample no older than kPrimingMaxAge (the engine's longest window): an
//     older one says nothing about now;
//   - it is this node's: every GPU recorded in the window has, at its index, the UUID the live
//     GPU has (where both are known). A copied file or a simulated history is not primed from.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.hpp"
#include "diagnose/diagnoser.hpp"
#include "diagnose/thresholds.hpp"
#include "store/history_database.hpp"
#include "store/history_reader.hpp"

namespace gpuwatch::history {

// The engine's longest window (310 s) with as much again before it: its sustained checks (leaks,
// idle, stuck) have a whole window of data, and what was raised before it is still known.
inline constexpr std::chrono::milliseconds kPrimingSpan = std::chrono::minutes(10);
inline constexpr std::chrono::milliseconds kPrimingMaxAge{static_cast<std::int64_t>(diagnose::thresholds::kLongWindowS * 1000)};

struct PrimingWindow {
  std::int64_t since_ms = 0, until_ms = 0;  // Unix ms, inclusive
};

// Why a history is not primed from (empty: it is).
struct PrimingChoice {
  std::optional<PrimingWindow> window;
  std::string skipped;  // "no history", "the latest sample is 2 h old", "recorded on another node (GPU 0 ...)"
};

// Pure. RECORDED: the GPUs the database has seen (store::read_gpus: index, UUID, last sample);
// LIVE: the live GPUs' identities (index and, where read, Uuid; no device: unknown, any node
// passes); NOW_MS: the start. The window ends at NOW_MS (a sample stamped later is never fed: the
// engine would ignore the live samples until it).
PrimingChoice choose_priming_window(const std::vector<store::GpuRecord>& recorded, const core::Snapshot& live,
                                    std::int64_t now_ms);

struct Priming {
  std::optional<PrimingWindow> window;  // what was read (nullopt: nothing)
  std::size_t snapshots = 0;            // samples fed
  std::string skipped;                  // why nothing was read, or the read's error
};

// Feeds the chosen window of DB into DIAGNOSER (fresh); on any error DIAGNOSER is left as new.
Priming prime_diagnoser(const store::HistoryDatabase& db, const core::Snapshot& live,
                        std::chrono::system_clock::time_point now, diagnose::Diagnoser& diagnoser);
// The same from the file at PATH, opened read-only (absent, or not a history: nothing).
Priming prime_diagnoser(const std::string& path, const core::Snapshot& live,
                        std::chrono::system_clock::time_point now, diagnose::Diagnoser& diagnoser);

// One line for a command's log: "diagnosis primed from the history: 600 samples of the last
// 10 min, 2 active findings", or "diagnosis not primed: ...". Empty when there was no history.
std::string describe_priming(const Priming& priming, const diagnose::Diagnoser& diagnoser);

}  // namespace gpuwatch::history
