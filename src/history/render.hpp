#pragma once
// `gpuwatch history` output, pure functions over the snapshots read from the store:
// table (aligned, with units), csv (as `query --format=csv`, with a leading time
// column), jsonl (as `query --format=jsonl`, plus "time"). Field names as `query`.
#include <string>
#include <vector>

#include "core/field.hpp"
#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "store/history_reader.hpp"

namespace gpuwatch::history {

enum class HistoryFormat { Table, Csv, Jsonl };
core::Result<HistoryFormat> parse_history_format(const std::string& text);

// "utilization.gpu,memory.used" -> fields; each must be recorded (or identity:
// index, uuid, name, serial, pci.bus_id). Empty text: the default list for FORMAT.
core::Result<std::vector<core::FieldId>> parse_history_fields(const std::string& text, HistoryFormat format);

// "time, index, utilization.gpu [%], ..." (no newline): the CSV header of history and of `record --csv`.
std::string history_csv_header(const std::vector<core::FieldId>& fields);
// The CSV or JSONL lines of one snapshot, one per GPU, each ending in a newline.
std::string history_rows(const core::Snapshot& snapshot, const std::vector<core::FieldId>& fields, HistoryFormat format);

// The whole output for these snapshots (ends with a newline unless empty; the table
// and csv have a header line even when there are no rows).
std::string render_history(const std::vector<core::Snapshot>& snapshots, const std::vector<core::FieldId>& fields,
                           HistoryFormat format);

// `history --processes`: one row per process per GPU over the range (pid, user, name,
// peak memory, first/last seen, seen for = last - first).
std::string render_process_summaries(const std::vector<store::ProcessSummary>& processes, HistoryFormat format);

}  // namespace gpuwatch::history
