#include "tui/cells.hpp"

#include <algorithm>
#include <cwchar>
#include <string_view>

namespace gpuwatch::tui {
namespace {

// The code point at TEXT[i] (advancing i); '?' for a byte that does not start valid UTF-8.
char32_t next_code_point(std::string_view text, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  const int extra = b0 >= 0xF5 ? -1 : b0 >= 0xF0 ? 3 : b0 >= 0xE0 ? 2 : b0 >= 0xC2 ? 1 : -1;
  if (extra < 0 || i + static_cast<std::size_t>(extra) >= text.size()) {
    ++i;
    return U'?';
  }
  char32_t cp = b0 & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    const unsigned char b = byte(i + static_cast<std::size_t>(k));
    if ((b & 0xC0) != 0x80) {
      ++i;
      return U'?';
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  i += static_cast<std::size_t>(extra) + 1;
  const bool overlong = (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return U'?';
  return cp;
}

// Columns CP takes: control characters count as the '?' shown instead.
int columns_of(char32_t& cp) {
  if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0)) {
    cp = U'?';
    return 1;
  }
  if (cp < 0x7F) return 1;
  // What frames are made of, one column each without asking the locale: Latin-1 (°), box drawing,
  // blocks and geometric shapes (bars, ▼), braille (charts).
  if ((cp >= 0xA0 && cp < 0x300) || (cp >= 0x2500 && cp < 0x25FD) || (cp >= 0x2800 && cp < 0x2900)) return 1;
  const int w = ::wcwidth(static_cast<wchar_t>(cp));
  return w < 0 ? 1 : w;  // unknown to the locale: one column, as the frame counts it
}

}  // namespace

void line_cells(const Line& line, int width, std::vector<Cell>& out) {
  const std::size_t n = static_cast<std::size_t>(std::max(width, 0));
  out.assign(n, Cell{});
  std::size_t x = 0;
  for (const auto& span : line.spans) {
    const std::string_view text = span.text;
    for (std::size_t i = 0; i < text.size() && x < n;) {
      // Fast paths for what frames are made of: printable ASCII, and the three-byte box drawing,
      // blocks and braille (one column each, as columns_of says).
      const auto b0 = static_cast<unsigned char>(text[i]);
      if (b0 >= 0x20 && b0 < 0x7F) {
        out[x++] = Cell{b0, span.tone};
        ++i;
        continue;
      }
      if (b0 == 0xE2 && i + 2 < text.size()) {
        const auto b1 = static_cast<unsigned char>(text[i + 1]), b2 = static_cast<unsigned char>(text[i + 2]);
        if ((b1 & 0xC0) == 0x80 && (b2 & 0xC0) == 0x80) {
          const char32_t cp = 0x2000 | (static_cast<char32_t>(b1 & 0x3F) << 6) | (b2 & 0x3F);
          if ((cp >= 0x2500 && cp < 0x25FD) || (cp >= 0x2800 && cp < 0x2900)) {
            out[x++] = Cell{cp, span.tone};
            i += 3;
            continue;
          }
        }
      }
      char32_t cp = next_code_point(text, i);
      const int w = columns_of(cp);
      if (w == 0) continue;
      if (x + static_cast<std::size_t>(w) > n) {
        x = n;  // a wide character at the last column: cut
        break;
      }
      out[x++] = Cell{cp, span.tone};
      if (w == 2) out[x++] = Cell{0, span.tone};
    }
  }
}

}  // namespace gpuwatch::tui
