#pragma once
// Colours and screen control for the terminal renderers (status, later others).
// Pure: a Style either wraps text in ANSI SGR codes or returns it unchanged; whether
// to colour is decided once, from --no-color, NO_COLOR and isatty(stdout).
#include <string>
#include <string_view>

namespace gpuwatch::terminal {

enum class Color { Plain, Bold, Red, BoldRed, Green, BoldGreen, Yellow, BoldYellow, Blue, BoldBlue,
                   Magenta, BoldMagenta, Cyan, Gray };

class Style {
 public:
  explicit Style(bool enabled) : enabled_(enabled) {}
  bool enabled() const { return enabled_; }
  // TEXT in colour C (and reset after it), or TEXT unchanged when colours are off.
  std::string paint(std::string_view text, Color c) const;

 private:
  bool enabled_;
};

// Colours are used only on a terminal, and never with --no-color or NO_COLOR set
// (app.cpp folds NO_COLOR into no_color_option).
bool should_use_color(bool no_color_option, bool stdout_is_terminal);
bool stdout_is_terminal();

// Moves the cursor home and clears the screen: redraw in place for `-i`.
inline constexpr std::string_view kClearScreen = "\x1b[H\x1b[2J";

}  // namespace gpuwatch::terminal
