#pragma once
// The bytes that bring the terminal from one frame's cells to the next: for each run of changed
// cells a cursor move, the tone's SGR when it changes, and the text as UTF-8, all in one buffer
// the screen sends with one write(2). This replaces curses' doupdate (its cursor planning was
// most of a refresh's CPU); curses keeps input, terminal setup and restore, and resizes.
// Pure: the escape sequences come in a TerminalCodes (screen.cpp derives them once from terminfo).
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tui/cells.hpp"
#include "tui/theme.hpp"

namespace gpuwatch::tui {

inline constexpr int kToneCount = static_cast<int>(Tone::Key) + 1;

struct TerminalCodes {
  // Per tone, everything that sets it from any state (starts with a reset: sgr0).
  std::array<std::string, kToneCount> tone;
  std::string reset;  // sgr0: what is left set after a frame (what curses believes)
  // The cursor move to row Y, column X (0-based). Empty: ECMA-48 `CSI Y+1;X+1 H`, written without
  // terminfo (every terminal whose cup is that, checked at start).
  std::function<std::string(int y, int x)> cursor;
  // Auto margins without the newline glitch (terminfo `am` without `xenl`): writing the bottom-right
  // cell scrolls the screen, so it is never written.
  bool skip_last_cell = false;
};

// Appends to OUT what the terminal needs to show AFTER on row Y where it shows BEFORE (nullptr:
// the row is blank or unknown, so every cell is written). Unchanged gaps shorter than a cursor move
// are written through rather than jumped. A run never starts or ends inside a wide character, and
// the cursor is placed again after each wide one (the terminal may count its width differently).
// TONE is the SGR state the terminal is in (nullopt: unknown) and is updated.
void write_row_changes(const std::vector<Cell>* before, const std::vector<Cell>& after, int y, bool last_row,
                       const TerminalCodes& codes, std::optional<Tone>& tone, std::string& out);

// The cursor move to row Y, column X appended to OUT.
void append_cursor(int y, int x, const TerminalCodes& codes, std::string& out);

// CP as UTF-8 appended to OUT.
void append_utf8(char32_t cp, std::string& out);

}  // namespace gpuwatch::tui
