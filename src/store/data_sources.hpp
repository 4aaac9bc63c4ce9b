#pragma once
// Where a database's samples came from: real NVML, or gpuwatch's simulated driver and
// which scenario (schema 4, table `sources`: one row per source, with the first and last
// sample time written from it). The writer records its source with every flush, so a file
// that got both (an explicit --db used with and without --simulate) says so, by time.
// A database written before schema 4 has no rows: its source is not known.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::store {

// What a writer records as the source of its rows.
struct DataSource {
  bool simulated = false;
  std::string scenario;  // simulated: the scenario (built-in name or file path); real: ""; imported: the file name
  // `gpuwatch import` (store/imports.hpp): real data read from a log file. Its span is kept in
  // `imports`, not `sources`; a GPU without UUID or PCI bus id is keyed "import:<file>:<index>"
  // (not "index:<n>", which is this machine's GPU).
  bool imported = false;
  bool operator==(const DataSource&) const = default;
};

struct SourceRecord {
  DataSource source;
  std::int64_t first_ms = 0, last_ms = 0;  // first and last sample written from it
};

// Migration 4: the `sources` table.
std::string schema_v4_sql();

// Sources whose samples overlap [since, until] (unbounded ends: nullopt), oldest first.
// Empty for a file older than schema 4 (no table) or with no row in the range. Imported logs
// (schema 12, store/imports.hpp) come as sources with imported set and the file as scenario.
core::Result<std::vector<SourceRecord>> read_sources(const HistoryDatabase& db, std::optional<std::int64_t> since_ms = {},
                                                     std::optional<std::int64_t> until_ms = {});

// What the sources of a range say about it, for the readers (history, report).
struct Provenance {
  bool known = false;                   // the database recorded its sources (schema 4 and a row in range)
  bool simulated = false;               // some of the data came from the simulated driver
  bool real = false;                    // some came from a real NVML driver
  std::vector<std::string> scenarios;   // the simulated ones, in order of first sample, once each
  std::vector<std::string> imported_files;  // logs brought in by `gpuwatch import` (real data), once each
};
Provenance provenance_of(const std::vector<SourceRecord>& sources);

// One line for people, "" when the data is known to be real only or its source is not known:
//   "simulated data (scenario demo): recorded on gpuwatch's simulated driver, not a real GPU"
//   "mixed data: real GPUs and gpuwatch's simulated driver (scenario demo) in this range"
//   "imported data (gpu_log.csv): read from a log file by `gpuwatch import`"
std::string provenance_note(const Provenance& provenance);

}  // namespace gpuwatch::store
