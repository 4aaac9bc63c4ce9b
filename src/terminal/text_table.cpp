#include "terminal/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/sink_text.hpp"

namespace gpuwatch::terminal {

std::string text_table(const std::vector<std::vector<std::string>>& given, std::size_t left_columns,
                       std::size_t left_from) {
  TextTable table(left_columns, left_from);
  for (const auto& row : given) table.add_row(row);
  return table.text();
}

TextTable::TextTable(std::size_t left_columns, std::size_t left_from)
    : left_columns_(left_columns), left_from_(left_from) {}

void TextTable::add_row(const std::vector<std::string>& row) {
  widths_.resize(std::max(widths_.size(), row.size()), 0);
  for (std::size_t i = 0; i < row.size(); ++i) {
    // Every cell as a terminal may show it (issue 31): a GPU name, command or user never moves
    // the cursor or breaks the row.
    const std::string encoded = core::needs_terminal_encoding(row[i]) ? core::terminal_text(row[i]) : std::string();
    const std::string& cell = encoded.empty() ? row[i] : encoded;
    cells_ += cell;
    cell_sizes_.push_back(static_cast<std::uint32_t>(cell.size()));
    widths_[i] = std::max(widths_[i], cell.size());
  }
  row_cells_.push_back(static_cast<std::uint32_t>(row.size()));
}

void TextTable::write(const std::function<void(std::string_view)>& out) const {
  constexpr std::size_t kPiece = 64 * 1024;
  std::string piece;
  std::size_t offset = 0, cell = 0;
  for (const std::uint32_t count : row_cells_) {
    std::string line;
    for (std::size_t i = 0; i < count; ++i, ++cell) {
      const std::string_view text(cells_.data() + offset, cell_sizes_[cell]);
      offset += cell_sizes_[cell];
      if (i > 0) line += "  ";
      line += i < left_columns_ || i >= left_from_ ? fmt::format("{:<{}}", text, widths_[i])
                                                   : fmt::format("{:>{}}", text, widths_[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    piece += line;
    piece += '\n';
    if (piece.size() >= kPiece) {
      out(piece);
      piece.clear();
    }
  }
  if (!piece.empty()) out(piece);
}

std::string TextTable::text() const {
  std::string out;
  write([&out](std::string_view piece) { out += piece; });
  return out;
}

std::string csv_cell(const std::string& given) {
  const std::string text = core::csv_text(given);  // no raw control byte in a cell (issue 31)
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace gpuwatch::terminal
