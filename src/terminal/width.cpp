#include "terminal/width.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
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
  // The bytes that are not UTF-8 continuation bytes (10xxxxxx), eight at a time: `top` measures
  // every span of every frame.
  std::size_t continuation = 0;
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    const std::uint64_t ones = (word & ~(word << 1) & 0x8080808080808080ULL) >> 7;  // 1 in each such byte
    continuation += static_cast<std::size_t>((ones * 0x0101010101010101ULL) >> 56);  // their sum (at most 8)
  }
  for (; i < text.size(); ++i) continuation += (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80 ? 1 : 0;
  return text.size() - continuation;
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
