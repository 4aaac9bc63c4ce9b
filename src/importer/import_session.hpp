#pragma once
// One log through its parser into the history: read line by line (each at most kMaxLineBytes;
// never the whole file), rows written in batches of kImportBatchRows, one transaction each, with
// the log's own times, as `imported` data from that file (store/imports.hpp). The same file
// imported again replaces its rows (gpu_samples' key: time and GPU), never duplicates them.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "core/result.hpp"
#include "importer/log_parser.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::importer {

inline constexpr std::size_t kMaxLineBytes = 1 << 20;
inline constexpr std::size_t kImportBatchRows = 20000;

struct ImportSummary {
  std::string file;    // the name it is recorded under (last path component; "stdin" for "-")
  std::string format;
  std::set<unsigned> gpus;
  std::optional<std::int64_t> first_ms, last_ms;
  std::size_t rows = 0, processes = 0, lines = 0;
  std::set<core::FieldId> fields;
  std::map<std::string, std::size_t> skipped;
  std::vector<std::string> notes;
  std::vector<LostGpu> lost;
};

// The name a log is recorded under: "stdin" for "-", else its last path component.
std::string import_file_name(const std::string& path);

// Reads IN (named LABEL in messages) to its end. DB: where the rows go; nullptr: a dry run
// (everything is read and checked, nothing written). Errors: "LABEL:LINE:COLUMN: what".
core::Result<ImportSummary> import_log(std::FILE* in, const std::string& label, const ParseOptions& options,
                                       store::HistoryDatabase* db);

// What was (or, DRY_RUN, would be) imported: GPUs, time range, fields, lost GPUs, skipped lines.
std::string render_import_summary(const ImportSummary& summary, bool dry_run);

}  // namespace gpuwatch::importer
