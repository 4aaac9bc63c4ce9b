#pragma once
// A plain text table: every column padded to its widest cell, two spaces between columns, no
// trailing spaces. Shared by history's tables (samples, processes, findings).
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace gpuwatch::terminal {

// The first LEFT_COLUMNS columns are left-aligned, the rest right-aligned (numbers), but for the
// columns from LEFT_FROM on, left-aligned again (a text column last, such as a command line).
// Cells pass through core::terminal_text: controls and invalid UTF-8 show visibly (issue 31).
std::string text_table(const std::vector<std::vector<std::string>>& rows,
                       std::size_t left_columns = std::numeric_limits<std::size_t>::max(),
                       std::size_t left_from = std::numeric_limits<std::size_t>::max());

// A CSV cell as RFC 4180 quotes it: as is, or in double quotes (doubled inside) when it holds
// a comma or a quote. Controls and invalid UTF-8 are shown visibly first (core::csv_text), so
// a cell never holds a raw control byte or line break (issue 31).
std::string csv_cell(const std::string& text);

}  // namespace gpuwatch::terminal
