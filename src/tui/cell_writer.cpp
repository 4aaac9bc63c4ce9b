#include "tui/cell_writer.hpp"

#include <charconv>

namespace gpuwatch::tui {
namespace {

// Unchanged cells between two changed ones shorter than this are written through: a cursor move
// (`ESC [ row ; col H`) is about as many bytes.
constexpr std::size_t kJoinGap = 8;

void append_number(int n, std::string& out) {
  char buffer[16];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, n);
  out.append(buffer, end);
}

}  // namespace

void append_cursor(int y, int x, const TerminalCodes& codes, std::string& out) {
  if (codes.cursor) {
    out += codes.cursor(y, x);
    return;
  }
  out += "\x1b[";
  append_number(y + 1, out);
  out += ';';
  append_number(x + 1, out);
  out += 'H';
}

void append_utf8(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

void write_row_changes(const std::vector<Cell>* before, const std::vector<Cell>& after, int y, bool last_row,
                       const TerminalCodes& codes, std::optional<Tone>& tone, std::string& out) {
  const std::size_t n = after.size();
  if (before != nullptr && before->size() != n) before = nullptr;  // another width: all of it
  const std::size_t limit = last_row && codes.skip_last_cell && n > 0 ? n - 1 : n;
  const auto changed = [&](std::size_t x) { return before == nullptr || (*before)[x] != after[x]; };
  // Column X is the right half of a wide character, in what is shown or in what replaces it.
  const auto half = [&](std::size_t x) { return after[x].ch == 0 || (before != nullptr && (*before)[x].ch == 0); };

  std::size_t x = 0;
  while (x < limit) {
    if (!changed(x)) {
      ++x;
      continue;
    }
    std::size_t start = x;
    while (start > 0 && half(start)) --start;
    std::size_t end = x + 1;
    for (;;) {
      while (end < limit && half(end)) ++end;
      std::size_t next = end;
      while (next < limit && next - end < kJoinGap && !changed(next)) ++next;
      if (next < limit && changed(next)) {
        end = next + 1;
        continue;
      }
      break;
    }
    append_cursor(y, static_cast<int>(start), codes, out);
    for (std::size_t i = start; i < end; ++i) {
      Cell cell = after[i];
      if (cell.ch == 0) continue;  // the right half of the wide character just written
      bool wide = i + 1 < n && after[i + 1].ch == 0;
      if (wide && i + 1 >= limit) {  // its right half would be the bottom-right cell
        cell.ch = U' ';
        wide = false;
      }
      if (tone != cell.tone) {
        out += codes.tone[static_cast<std::size_t>(cell.tone)];
        tone = cell.tone;
      }
      append_utf8(cell.ch, out);
      if (wide && i + 2 < end) append_cursor(y, static_cast<int>(i + 2), codes, out);
    }
    x = end;
  }
}

}  // namespace gpuwatch::tui
