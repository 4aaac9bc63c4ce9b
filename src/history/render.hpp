#pragma once
// `gpuwatch history` output, pure functions over the snapshots read from the store:
// table (aligned, with units), csv (as `query --format=csv`, with a leading time
// column), jsonl (as `query --format=jsonl`, plus "time"). Field names as `query`.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/field.hpp"
#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "store/history_reader.hpp"
#include "terminal/text_table.hpp"

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

// render_history's output for snapshots handed one at a time (store::for_each_snapshot), so a
// day of history never sits in memory: csv and jsonl lines go to WRITE as each snapshot comes;
// the table, whose column widths need every row, keeps only its cells (terminal::TextTable, about
// 150 bytes a row) and goes to WRITE at finish(). The same bytes as render_history.
class HistoryOutput {
 public:
  using Write = std::function<void(std::string_view)>;
  HistoryOutput(std::vector<core::FieldId> fields, HistoryFormat format, Write write);
  void add(const core::Snapshot& snapshot);
  void finish();                                            // once, after the last add
  std::size_t snapshots() const { return snapshots_; }      // added so far

 private:
  std::vector<core::FieldId> fields_;
  HistoryFormat format_;
  Write write_;
  terminal::TextTable table_;
  std::vector<std::string> row_;  // reused from row to row
  std::size_t snapshots_ = 0;
};

// `history --processes`: one row per process per GPU over the range (pid, user, name,
// peak memory, first/last seen, seen for = last - first).
std::string render_process_summaries(const std::vector<store::ProcessSummary>& processes, HistoryFormat format);

}  // namespace gpuwatch::history
