#pragma once
// A frame line as terminal cells, and which cells changed since the last frame: the screen
// sends curses only the cells that differ (a refresh of 8 GPUs changes a few values per line),
// as a ready-made cell array, not as text curses would decode again character by character.
// Pure (wcwidth of the current locale decides wide and zero-width characters).
#include <cstddef>
#include <optional>
#include <utility>
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

// The columns [first, last) where BEFORE and AFTER differ, widened so that neither end splits a
// wide character; nullopt when they are the same. Rows of different sizes differ everywhere.
std::optional<std::pair<int, int>> changed_columns(const std::vector<Cell>& before, const std::vector<Cell>& after);

}  // namespace gpuwatch::tui
