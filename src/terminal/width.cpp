#include "terminal/width.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace gpuwatch::terminal {

std::size_t choose_columns(std::optional<std::size_t> terminal_columns, const char* columns_env) {
  if (terminal_columns && *terminal_columns > 0) return *terminal_columns;
  if (columns_env == nullptr || *columns_env == '\0') return 0;
  char* end = nullptr;
  long value = std::strtol(columns_env, &end, 10);
  if (end == nullptr || *end != '\0' || value <= 0 || value > 100000) return 0;
  return static_cast<std::size_t>(value);
}

std::size_t display_width(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string fit(std::string_view text, std::size_t width) {
  if (width == 0 || display_width(text) <= width) return std::string(text);
  const std::size_t keep = width > 3 ? width - 3 : 0;
  std::size_t columns = 0, end = 0;
  while (end < text.size()) {
    std::size_t next = end + 1;
    while (next < text.size() && (static_cast<unsigned char>(text[next]) & 0xC0) == 0x80) ++next;
    if (columns + 1 > keep) break;
    ++columns;
    end = next;
  }
  return std::string(text.substr(0, end)) + std::string("...").substr(0, width - keep);
}

std::size_t output_columns(bool stdout_is_terminal) {
  std::optional<std::size_t> terminal;
  winsize size{};
  if (stdout_is_terminal && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) terminal = size.ws_col;
  return choose_columns(terminal, std::getenv("COLUMNS"));
}

}  // namespace gpuwatch::terminal
