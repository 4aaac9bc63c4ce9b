#pragma once
// The curses edge: the only file that includes ncursesw. Opens the terminal (alternate screen,
// no echo, keypad, mouse), draws a Frame with a Theme, and waits for input with a timeout,
// translating curses keys into tui::key codes. Closing (the destructor) restores the terminal.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "tui/cell_writer.hpp"
#include "tui/cells.hpp"
#include "tui/frame.hpp"
#include "tui/theme.hpp"

namespace gpuwatch::tui {

struct Input {
  enum class Kind { Key, Click, WheelUp, WheelDown } kind = Kind::Key;
  int key = 0;       // Key: a character (Unicode code point) or a key:: code
  int x = 0, y = 0;  // mouse
};

class Screen {
 public:
  // Fails (with why) when stdin/stdout is not a terminal or curses cannot start.
  static core::Result<std::unique_ptr<Screen>> open(bool color);
  ~Screen();
  Screen(const Screen&) = delete;
  Screen& operator=(const Screen&) = delete;

  int width() const;
  int height() const;
  // Writes only the cells that differ from the last frame drawn (all of them after a resize or a
  // theme change), as escape sequences in one write(2) (tui/cell_writer.hpp): curses' per-character
  // work and its cursor planning were most of the UI thread's CPU. Curses only clears the screen
  // for a full redraw; it reads input and restores the terminal.
  void draw(const Frame& frame, Theme theme);
  // The next input within TIMEOUT (0: only what is pending); nullopt when none came.
  std::optional<Input> next_input(std::chrono::milliseconds wait);

 private:
  Screen() = default;
  bool color_ = false;
  void* screen_ = nullptr;  // SCREEN*
  std::vector<Line> drawn_;  // what the terminal shows now
  std::vector<std::vector<Cell>> cells_;  // ... as cells, row by row
  std::vector<Cell> row_;  // the row being drawn (kept to reuse its memory)
  std::optional<TerminalCodes> codes_;  // the escape sequences of drawn_theme_, from terminfo
  std::string out_;  // the bytes of one refresh (kept to reuse its memory)
  Theme drawn_theme_ = Theme::Default;
  int drawn_width_ = 0, drawn_height_ = 0;
};

}  // namespace gpuwatch::tui
