#include "terminal/style.hpp"

#include <unistd.h>

namespace gpuwatch::terminal {
namespace {

std::string_view sgr(Color c) {
  switch (c) {
    case Color::Plain: return "";
    case Color::Bold: return "\x1b[1m";
    case Color::Red: return "\x1b[31m";
    case Color::BoldRed: return "\x1b[1;31m";
    case Color::Green: return "\x1b[32m";
    case Color::BoldGreen: return "\x1b[1;32m";
    case Color::Yellow: return "\x1b[33m";
    case Color::BoldYellow: return "\x1b[1;33m";
    case Color::Blue: return "\x1b[34m";
    case Color::BoldBlue: return "\x1b[1;34m";
    case Color::Magenta: return "\x1b[35m";
    case Color::BoldMagenta: return "\x1b[1;35m";
    case Color::Cyan: return "\x1b[36m";
    case Color::Gray: return "\x1b[90m";
  }
  return "";
}

}  // namespace

std::string Style::paint(std::string_view text, Color c) const {
  std::string_view code = sgr(c);
  if (!enabled_ || code.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size() + code.size() + 4);
  out += code;
  out += text;
  out += "\x1b[0m";
  return out;
}

bool should_use_color(bool no_color_option, bool is_terminal) { return is_terminal && !no_color_option; }

bool stdout_is_terminal() { return isatty(STDOUT_FILENO) == 1; }

}  // namespace gpuwatch::terminal
