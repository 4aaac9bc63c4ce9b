#pragma once
// A plain text table: every column padded to its widest cell, two spaces between columns, no
// trailing spaces. Shared by history's tables (samples, processes, findings).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::terminal {

// The first LEFT_COLUMNS columns are left-aligned, the rest right-aligned (numbers), but for the
// columns from LEFT_FROM on, left-aligned again (a text column last, such as a command line).
// Cells pass through core::terminal_text: controls and invalid UTF-8 show visibly (issue 31).
std::string text_table(const std::vector<std::vector<std::string>>& rows,
                       std::size_t left_columns = std::numeric_limits<std::size_t>::max(),
                       std::size_t left_from = std::numeric_limits<std::size_t>::max());

// text_table built a row at a time and held compactly, for tables of millions of rows (a day of
// `history`): the cells' encoded text in one buffer and a size per cell, the column widths kept
// as rows come. write() hands text_table's exact output out in pieces of about 64 KiB.
class TextTable {
 public:
  explicit TextTable(std::size_t left_columns = std::numeric_limits<std::size_t>::max(),
                     std::size_t left_from = std::numeric_limits<std::size_t>::max());
  void add_row(const std::vector<std::string>& cells);
  std::size_t rows() const { return row_cells_.size(); }
  void write(const std::function<void(std::string_view)>& out) const;
  std::string text() const;

 private:
  std::size_t left_columns_, left_from_;
  std::string cells_;                       // every cell's text, encoded, back to back
  std::vector<std::uint32_t> cell_sizes_;   // in bytes, row after row
  std::vector<std::uint32_t> row_cells_;    // cells per row
  std::vector<std::size_t> widths_;         // per column, the widest cell so far
};

// A CSV cell as RFC 4180 quotes it: as is, or in double quotes (doubled inside) when it holds
// a comma or a quote. Controls and invalid UTF-8 are shown visibly first (core::csv_text), so
// a cell never holds a raw control byte or line break (issue 31).
std::string csv_cell(const std::string& text);

}  // namespace gpuwatch::terminal
