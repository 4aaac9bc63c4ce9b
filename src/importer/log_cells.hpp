#pragma once
// The cells of a log line and what they hold, as nvidia-smi prints them: numbers with or without
// their unit ("45 %", "1024 MiB", "72.10 W", "1410 MHz"), "[N/A]", "[Not Supported]" and the other
// bracketed errors, dmon's "-": absent (no value), never 0. Times as logs write them. Pure.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/field.hpp"

namespace gpuwatch::importer {

struct Cell {
  std::string_view text;  // trimmed
  std::size_t column = 1; // 1-based, of the cell's first character in the line (its start if empty)
};

// Cells separated by SEP (nvidia-smi's CSV has no quoting), trimmed; COLUMN_BASE: the line column
// of TEXT's first character.
std::vector<Cell> split_cells(std::string_view text, char sep, std::size_t column_base = 1);
// Words separated by blanks (dmon and pmon).
std::vector<Cell> split_words(std::string_view text, std::size_t column_base = 1);

// "", "-", "N/A", "[N/A]", "[Not Supported]", "[Unknown Error]", ...: the log has no value.
bool is_absent_cell(std::string_view text);

struct CellValue {
  std::optional<core::FieldValue> value;  // nullopt: absent (or a problem)
  std::string problem;                    // non-empty: the cell is not a value of the field
};

// TEXT as a value of FIELD in the core's base unit, as stored in the history (history column
// kind: double, unsigned or signed). The number is in the field's nvidia-smi display unit, whose
// suffix may follow it; DISPLAY_TO_BASE overrides that unit's scale (dmon's MB/s).
CellValue parse_field_cell(core::FieldId field, std::string_view text, std::optional<double> display_to_base = {});

// "2025/09/08 14:14:37.120", "2025-09-08 14:14:37", "2025-09-08T14:14:37.120Z", "...+02:00",
// "20250908 14:14:37" (dmon -o DT), or Unix seconds "1757340877.12" -> Unix ms. A time with no
// zone is taken as UTC + UTC_OFFSET_MINUTES (the log's local time). nullopt: not a time.
std::optional<std::int64_t> parse_log_time(std::string_view text, int utc_offset_minutes);

// "+02:00", "-0530", "0" -> minutes east of UTC; nullopt: not an offset.
std::optional<int> parse_utc_offset(std::string_view text);

// Unix ms -> "2025-09-08T14:14:37.120Z".
std::string format_utc_ms(std::int64_t ms);

}  // namespace gpuwatch::importer
