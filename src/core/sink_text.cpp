#include "core/sink_text.hpp"

#include <cstdio>

namespace gpuwatch::core {
namespace {

// The length of the valid UTF-8 sequence of 2-4 bytes at TEXT[i] and its code point, or 0.
std::size_t sink_utf8_sequence(std::string_view text, std::size_t i, char32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  const std::size_t extra = b0 >= 0xF5 ? 0 : b0 >= 0xF0 ? 3 : b0 >= 0xE0 ? 2 : b0 >= 0xC2 ? 1 : 0;
  if (extra == 0 || i + extra >= text.size()) return 0;
  cp = b0 & (0x3F >> extra);
  for (std::size_t k = 1; k <= extra; ++k) {
    const unsigned char b = byte(i + k);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  const bool overlong = (extra == 2 && cp < 0x800) || (extra == 3 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return extra + 1;
}

// A code point a terminal acts on or that reorders or breaks the line (beyond C0 and DEL).
bool sink_invisible_control(char32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

void sink_hex_byte(std::string& out, unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", b);
  out += buf;
}

}  // namespace

bool needs_terminal_encoding(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b >= 0x20 && b < 0x7F) {
      ++i;
      continue;
    }
    if (b < 0x80) return true;  // C0, DEL
    char32_t cp = 0;
    const std::size_t n = sink_utf8_sequence(text, i, cp);
    if (n == 0 || sink_invisible_control(cp)) return true;
    i += n;
  }
  return false;
}

std::string terminal_text(std::string_view text) {
  if (!needs_terminal_encoding(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b >= 0x20 && b < 0x7F) {
      out += static_cast<char>(b);
      ++i;
      continue;
    }
    if (b < 0x80) {
      if (b == '\n') out += "\\n";
      else if (b == '\r') out += "\\r";
      else if (b == '\t') out += "\\t";
      else sink_hex_byte(out, b);
      ++i;
      continue;
    }
    char32_t cp = 0;
    const std::size_t n = sink_utf8_sequence(text, i, cp);
    if (n == 0) {
      sink_hex_byte(out, b);
      ++i;
      continue;
    }
    if (sink_invisible_control(cp)) {
      char buf[12];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string plain_line(std::string_view text) { return terminal_text(text); }

std::string terminal_lines(std::string_view text) {
  if (!needs_terminal_encoding(text)) return std::string(text);
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find('\n', start);
    out += terminal_text(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

std::string csv_text(std::string_view text) { return terminal_text(text); }

std::string slack_mrkdwn(std::string_view text) {
  const std::string line = plain_line(text);
  std::string out;
  out.reserve(line.size());
  for (char c : line) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

std::string markdown_text(std::string_view text) {
  // Link ([x](y), ![x](y)), autolink (<https://y>), emphasis, code, heading, HTML: each needs one of
  // these; with them escaped, parentheses, dots and dashes can stay as they are (readable in Teams).
  static constexpr std::string_view kSyntax = "\\`*_~[]<>#|";
  const std::string line = plain_line(text);
  std::string out;
  out.reserve(line.size() + 8);
  for (char c : line) {
    if (kSyntax.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string encode_for(TextSink sink, std::string_view text) {
  switch (sink) {
    case TextSink::Raw: return std::string(text);
    case TextSink::Terminal: return terminal_text(text);
    case TextSink::PlainLine: return plain_line(text);
    case TextSink::SlackMrkdwn: return slack_mrkdwn(text);
    case TextSink::Markdown: return markdown_text(text);
  }
  return terminal_text(text);
}

}  // namespace gpuwatch::core
