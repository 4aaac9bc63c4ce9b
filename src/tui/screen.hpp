#pragma once
// The curses edge: the only file that includes ncursesw. Opens the terminal (alternate screen,
// no echo, keypad, mouse), draws a Frame with a Theme, and waits for input with a timeout,
// translating curses keys into tui::key codes. Closing (the destructor) restores the terminal.
#include <chrono>
#include <memory>
#include <optional>

#include "core/result.hpp"
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
  void draw(const Frame& frame, Theme theme);
  // The next input within TIMEOUT (0: only what is pending); nullopt when none came.
  std::optional<Input> next_input(std::chrono::milliseconds wait);

 private:
  Screen() = default;
  bool color_ = false;
  void* screen_ = nullptr;  // SCREEN*
};

}  // namespace gpuwatch::tui
