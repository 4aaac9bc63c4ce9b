#pragma once
// The one shape of every log parser: lines in (no newline), rows out; what it skipped and why,
// what it says about the log. Pure: no I/O (import_session.cpp reads the file).
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "importer/imported_row.hpp"

namespace gpuwatch::importer {

// What the command line says about a log that does not say it itself.
struct ParseOptions {
  std::vector<std::string> columns;       // --columns: a noheader CSV's query names, in order
  std::optional<std::int64_t> start_ms;   // --start: the first sample's time (logs without times)
  std::int64_t interval_ms = 1000;        // --interval: between samples of a log without times
  int utc_offset_minutes = 0;             // --utc-offset: the zone of times written without one
  std::optional<unsigned> gpus;           // --gpus: GPUs per sample of a log without index column
};

class LogParser {
 public:
  virtual ~LogParser() = default;
  // One line, without its newline; COMPLETE is false for a last line with no newline (cut off).
  // Appends the line's rows to ROWS; a line it cannot read gives a problem (line, column).
  virtual std::optional<ParseProblem> parse_line(std::string_view line, std::size_t line_no, bool complete,
                                                 std::vector<ImportedRow>& rows) = 0;
  // At the end of the log: the GPUs it shows lost.
  virtual std::vector<LostGpu> finish() { return {}; }
  virtual std::string format_name() const = 0;

  // Lines not imported, by reason ("blank", "header repeated", "no value in the row", ...).
  const std::map<std::string, std::size_t>& skipped() const { return skipped_; }
  // Said in the output: how GPUs were told apart, columns not kept.
  const std::vector<std::string>& notes() const { return notes_; }

 protected:
  void skip(const std::string& reason) { ++skipped_[reason]; }
  void note(const std::string& text) {
    for (const auto& n : notes_)
      if (n == text) return;
    notes_.push_back(text);
  }

 private:
  std::map<std::string, std::size_t> skipped_;
  std::vector<std::string> notes_;
};

enum class LogFormat { QueryGpuCsv, Dmon, Pmon, GpustatJson, DcgmDmon };

// From the log's first non-blank line: "{" is gpustat --json, "#Entity" dcgmi dmon, "# gpu ... pid" pmon,
// "# gpu" dmon, else CSV.
LogFormat detect_log_format(std::string_view first_line);
const char* to_string(LogFormat format);

std::unique_ptr<LogParser> make_log_parser(LogFormat format, const ParseOptions& options);

}  // namespace gpuwatch::importer
