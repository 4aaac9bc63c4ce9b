#include "terminal/text_table.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/sink_text.hpp"

namespace gpuwatch::terminal {

std::string text_table(const std::vector<std::vector<std::string>>& given, std::size_t left_columns,
                       std::size_t left_from) {
  // Every cell as a terminal may show it (issue 31): a GPU name, command or user never moves
  // the cursor or breaks the row.
  // (A copy only when a cell needs it: a long history table stays one copy in memory.)
  std::vector<std::vector<std::string>> encoded;
  const auto needs = [](const std::vector<std::string>& row) {
    return std::any_of(row.begin(), row.end(), [](const std::string& cell) { return core::needs_terminal_encoding(cell); });
  };
  if (std::any_of(given.begin(), given.end(), needs)) {
    encoded = given;
    for (auto& row : encoded) {
      for (auto& cell : row) cell = core::terminal_text(cell);
    }
  }
  const auto& rows = encoded.empty() ? given : encoded;
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i > 0) line += "  ";
      line += i < left_columns || i >= left_from ? fmt::format("{:<{}}", row[i], widths[i]) : fmt::format("{:>{}}", row[i], widths[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
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
