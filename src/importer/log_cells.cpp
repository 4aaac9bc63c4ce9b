#include "importer/log_cells.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "core/field_table.hpp"
#include "store/history_columns.hpp"

namespace gpuwatch::importer {
namespace {

bool is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\r'; }

Cell trimmed_cell(std::string_view text, std::size_t column) {
  std::size_t first = 0;
  while (first < text.size() && is_blank_char(text[first])) ++first;
  std::size_t last = text.size();
  while (last > first && is_blank_char(text[last - 1])) --last;
  return Cell{text.substr(first, last - first), column + first};
}

// The scale from the field's nvidia-smi display unit to the core's base unit.
double display_scale(core::Display display) {
  switch (display) {
    case core::Display::Percent:
    case core::Display::Percent2: return 0.01;
    case core::Display::MiB: return 1048576.0;
    case core::Display::MHz: return 1e6;
    case core::Display::KBps: return 1024.0;
    case core::Display::Microseconds: return 1e-6;
    case core::Display::Milliseconds: return 1e-3;
    default: return 1.0;
  }
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Reads exactly N digits at POS.
std::optional<int> digits_at(std::string_view s, std::size_t& pos, std::size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const char c = s[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  pos += n;
  return v;
}

}  // namespace

std::vector<Cell> split_cells(std::string_view text, char sep, std::size_t column_base) {
  std::vector<Cell> cells;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(sep, start);
    const std::string_view part = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    cells.push_back(trimmed_cell(part, column_base + start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return cells;
}

std::vector<Cell> split_words(std::string_view text, std::size_t column_base) {
  std::vector<Cell> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_blank_char(text[i])) ++i;
    if (i >= text.size()) break;
    const std::size_t start = i;
    while (i < text.size() && !is_blank_char(text[i])) ++i;
    words.push_back(Cell{text.substr(start, i - start), column_base + start});
  }
  return words;
}

bool is_absent_cell(std::string_view text) {
  if (text.empty() || text == "-" || text == "N/A") return true;
  return text.front() == '[' && text.back() == ']';
}

CellValue parse_field_cell(core::FieldId field, std::string_view text, std::optional<double> display_to_base) {
  CellValue out;
  if (is_absent_cell(text)) return out;
  const core::FieldInfo& info = core::field_info(field);
  if (info.display == core::Display::Text) {
    out.value = core::FieldValue(std::string(text));
    return out;
  }
  std::string_view number = text;
  std::string_view unit;
  if (const auto space = text.find(' '); space != std::string_view::npos) {
    number = text.substr(0, space);
    unit = text.substr(space + 1);
    while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  }
  if (!unit.empty() && unit != info.unit_suffix()) {
    out.problem = fmt::format("'{}': unit '{}' where {} takes {}", text, unit, info.name,
                              info.unit_suffix().empty() ? std::string("none") : "'" + std::string(info.unit_suffix()) + "'");
    return out;
  }
  double value = 0;
  if (info.display == core::Display::PState && number.size() >= 2 && number.front() == 'P') {
    number.remove_prefix(1);
  }
  if (number.size() > 2 && number[0] == '0' && (number[1] == 'x' || number[1] == 'X')) {
    std::uint64_t hex = 0;
    const auto [end, ec] = std::from_chars(number.data() + 2, number.data() + number.size(), hex, 16);
    if (ec != std::errc() || end != number.data() + number.size()) {
      out.problem = fmt::format("'{}' is not a number", text);
      return out;
    }
    value = static_cast<double>(hex);
    if (const auto* column = store::find_history_column(field); column && column->kind == store::ValueKind::Unsigned) {
      out.value = core::FieldValue(hex);
      return out;
    }
  } else {
    const std::string copy(number);
    char* end = nullptr;
    value = std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size() || !std::isfinite(value)) {
      out.problem = fmt::format("'{}' is not a number", text);
      return out;
    }
  }
  value *= display_to_base.value_or(display_scale(info.display));
  const auto* column = store::find_history_column(field);
  const auto kind = column ? column->kind : store::ValueKind::Double;
  if (kind == store::ValueKind::Unsigned) {
    if (value < 0) {
      out.problem = fmt::format("'{}' is negative", text);
      return out;
    }
    out.value = core::FieldValue(static_cast<std::uint64_t>(std::llround(value)));
  } else if (kind == store::ValueKind::Signed) {
    out.value = core::FieldValue(static_cast<std::int64_t>(std::llround(value)));
  } else {
    out.value = core::FieldValue(value);
  }
  return out;
}

std::optional<std::int64_t> parse_log_time(std::string_view text, int utc_offset_minutes) {
  while (!text.empty() && is_blank_char(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_blank_char(text.back())) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  // Unix seconds: digits only (and a fraction), at least 9 of them.
  const std::size_t dot = text.find('.');
  const std::size_t integer_digits = dot == std::string_view::npos ? text.size() : dot;
  if (text.find_first_not_of("0123456789.") == std::string_view::npos && integer_digits >= 9) {
    const std::string copy(text);
    char* end = nullptr;
    const double seconds = std::strtod(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size() || !std::isfinite(seconds)) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(seconds * 1000));
  }
  std::size_t pos = 0;
  auto year = digits_at(text, pos, 4);
  if (!year) return std::nullopt;
  const bool compact = pos < text.size() && text[pos] >= '0' && text[pos] <= '9';  // 20250908 (dmon -o DT)
  auto separator = [&]() {
    if (compact) return true;
    if (pos < text.size() && (text[pos] == '/' || text[pos] == '-')) return ++pos, true;
    return false;
  };
  if (!separator()) return std::nullopt;
  auto month = digits_at(text, pos, 2);
  if (!month || !separator()) return std::nullopt;
  auto day = digits_at(text, pos, 2);
  if (!day || *month < 1 || *month > 12 || *day < 1 || *day > 31) return std::nullopt;
  if (pos >= text.size() || (text[pos] != ' ' && text[pos] != 'T')) return std::nullopt;
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == 'T')) ++pos;
  auto hour = digits_at(text, pos, 2);
  if (!hour || pos >= text.size() || text[pos++] != ':') return std::nullopt;
  auto minute = digits_at(text, pos, 2);
  if (!minute) return std::nullopt;
  int second = 0;
  if (pos < text.size() && text[pos] == ':') {
    ++pos;
    auto s = digits_at(text, pos, 2);
    if (!s) return std::nullopt;
    second = *s;
  }
  std::int64_t millis = 0;
  if (pos < text.size() && (text[pos] == '.' || text[pos] == ',')) {
    ++pos;
    std::int64_t scale = 100;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      millis += (text[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
  }
  if (*hour > 23 || *minute > 59 || second > 60) return std::nullopt;
  int offset = utc_offset_minutes;
  const std::string_view zone = text.substr(pos);
  if (zone == "Z" || zone == " UTC" || zone == "UTC") {
    offset = 0;
  } else if (!zone.empty()) {
    auto parsed = parse_utc_offset(zone);
    if (!parsed) return std::nullopt;
    offset = *parsed;
  }
  const std::int64_t days = days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
  const std::int64_t seconds = days * 86400 + *hour * 3600 + *minute * 60 + second - static_cast<std::int64_t>(offset) * 60;
  return seconds * 1000 + millis;
}

std::optional<int> parse_utc_offset(std::string_view text) {
  if (text == "0" || text == "Z") return 0;
  if (text.size() < 3 || (text[0] != '+' && text[0] != '-')) return std::nullopt;
  const int sign = text[0] == '-' ? -1 : 1;
  std::size_t pos = 1;
  auto hours = digits_at(text, pos, 2);
  if (!hours) return std::nullopt;
  int minutes = 0;
  if (pos < text.size()) {
    if (text[pos] == ':') ++pos;
    auto m = digits_at(text, pos, 2);
    if (!m || pos != text.size()) return std::nullopt;
    minutes = *m;
  }
  if (*hours > 14 || minutes > 59) return std::nullopt;
  return sign * (*hours * 60 + minutes);
}

std::string format_utc_ms(std::int64_t ms) {
  std::int64_t seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  const std::int64_t millis = ms - seconds * 1000;
  std::int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  std::int64_t rest = seconds - days * 86400;
  // civil_from_days
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned d = doy - (153 * mp + 2) / 5 + 1;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", y + (m <= 2), m, d, rest / 3600, rest / 60 % 60, rest % 60,
                     millis);
}

}  // namespace gpuwatch::importer
