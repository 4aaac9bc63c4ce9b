#pragma once
// A frame line as terminal cells: the screen compares them with the cells shown and writes only
// those that differ (cell_writer.hpp; a refresh of 8 GPUs changes a few values per line).
// Pure (wcwidth of the current locale decides wide and zero-width characters).
#include <cstddef>
#include <vector>

#include "tui/frame.hpp"

namespace gpuwatch::tui {

struct Cell {
  char32_t ch = U' ';  // 0: the right half of the wide character to its left
  Tone tone = Tone::Normal;
  bool operator==(const Cell&) const = default;
};

// LINE as exactly WIDTH cells, blanks after its text. A character that would not fit is cut
// (a wide one at the last column too); control characters and bytes that are not UTF-8 show
// as '?', never reaching the terminal; zero-width characters are left out.
void line_cells(const Line& line, int width, std::vector<Cell>& out);

}  // namespace gpuwatch::tui
