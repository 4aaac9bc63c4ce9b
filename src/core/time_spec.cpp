#include "core/time_spec.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fmt/core.h>
#include <regex>

namespace gpuwatch::core {
namespace {

std::int64_t to_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// TEXT as given, cut to 40 characters (+ "…") for messages: a 400-digit argument is named,
// not echoed whole.
int days_in_month(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

std::string shown(const std::string& text) { return text.size() <= 40 ? text : text.substr(0, 40) + "…"; }

core::Error time_error(const std::string& text) {
  return core::make_error("cannot read the time '" + shown(text) +
                          "': give a duration before now (2h, 30m, 7d), an ISO date/time "
                          "(2026-11-29T14:00, optional Z or +01:00), @UNIX_SECONDS or now");
}

// Digits (already matched by a pattern) as a double; infinity when past double's range
// (std::stod would throw a bare "stod").
double digits_value(const std::string& digits) { return std::strtod(digits.c_str(), nullptr); }

// The latest time accepted: 9999-12-31T23:59:59Z (beyond it, milliseconds overflow nothing,
// but no history or report means anything).
constexpr double kMaxUnixSeconds = 253402300799.0;

}  // namespace

core::Result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  static const std::regex pattern(R"(^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h|d|w)?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) {
    return core::make_error("cannot read the duration '" + shown(text) + "': " + std::string(kDurationGrammar));
  }
  double value = digits_value(m[1].str());
  std::string unit = m[2].matched ? m[2].str() : "s";
  double ms_per_unit = unit == "ms" ? 1 : unit == "s" ? 1e3 : unit == "m" ? 6e4 : unit == "h" ? 3.6e6 : unit == "d" ? 8.64e7 : 6.048e8;
  double ms = value * ms_per_unit;
  if (!std::isfinite(ms) || ms < 1 || ms > 3.2e11) {
    return core::make_error("the duration '" + shown(text) + "' is out of range (1ms .. 10 years)");
  }
  return std::chrono::milliseconds(std::llround(ms));
}

core::Result<std::int64_t> parse_time_spec(const std::string& text, std::chrono::system_clock::time_point now) {
  if (text == "now") return to_ms(now);
  if (!text.empty() && text[0] == '@') {
    static const std::regex unix_pattern(R"(^@([0-9]+(?:\.[0-9]+)?)$)");
    if (!std::regex_match(text, unix_pattern)) return time_error(text);
    const double seconds = digits_value(text.substr(1));
    if (!std::isfinite(seconds) || seconds > kMaxUnixSeconds) {
      return core::make_error("the time '" + shown(text) + "' is out of range: give @0 to @253402300799 (9999-12-31)");
    }
    return static_cast<std::int64_t>(std::llround(seconds * 1000.0));
  }
  auto duration = parse_duration(text);
  if (duration) return to_ms(now) - duration->count();
  // A number too large for a duration (400 digits) says so, rather than "cannot read".
  if (duration.error().message.find("out of range") != std::string::npos) return duration.error();
  static const std::regex iso(
      R"(^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$)");
  std::smatch m;
  if (!std::regex_match(text, m, iso)) return time_error(text);
  std::tm tm{};
  tm.tm_year = std::stoi(m[1]) - 1900;
  tm.tm_mon = std::stoi(m[2]) - 1;
  tm.tm_mday = std::stoi(m[3]);
  tm.tm_hour = m[4].matched ? std::stoi(m[4]) : 0;
  tm.tm_min = m[5].matched ? std::stoi(m[5]) : 0;
  tm.tm_sec = m[6].matched ? std::stoi(m[6]) : 0;
  // A date that does not exist (month 00, 2026-02-30) is an error, not normalised into another.
  if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > days_in_month(tm.tm_year + 1900, tm.tm_mon + 1) ||
      tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60) {
    return time_error(text);
  }
  std::int64_t millis = 0;
  if (m[7].matched) {
    std::string frac = m[7].str();
    frac.resize(3, '0');
    millis = std::stoi(frac);
  }
  std::int64_t seconds = 0;
  if (m[8].matched) {
    seconds = timegm(&tm);
    std::string zone = m[8].str();
    if (zone != "Z") {
      int sign = zone[0] == '-' ? -1 : 1;
      std::string digits;
      for (char c : zone) {
        if (std::isdigit(static_cast<unsigned char>(c))) digits += c;
      }
      const int offset_h = std::stoi(digits.substr(0, 2)), offset_min = std::stoi(digits.substr(2, 2));
      if (offset_h > 23 || offset_min > 59) return time_error(text);
      int offset_s = (offset_h * 3600 + offset_min * 60) * sign;
      seconds -= offset_s;
    }
  } else {
    tm.tm_isdst = -1;
    seconds = std::mktime(&tm);
  }
  return seconds * 1000 + millis;
}

std::string format_iso8601(std::chrono::system_clock::time_point t) {
  std::int64_t ms = to_ms(t);
  std::time_t seconds = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  int millis = static_cast<int>(ms - static_cast<std::int64_t>(seconds) * 1000);
  std::tm local{};
  localtime_r(&seconds, &local);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &local);
  long offset_min = local.tm_gmtoff / 60;
  char sign = offset_min < 0 ? '-' : '+';
  offset_min = std::labs(offset_min);
  return fmt::format("{}.{:03}{}{:02}:{:02}", date, millis, sign, offset_min / 60, offset_min % 60);
}

core::Result<TimeRange> parse_time_range(const std::string& since, const std::string& until,
                                         std::chrono::system_clock::time_point now) {
  TimeRange range;
  if (!since.empty() && since != "all") {
    auto t = parse_time_spec(since, now);
    if (!t) return core::make_error("--since: " + t.error().message);
    range.since_ms = *t;
  }
  if (!until.empty()) {
    auto t = parse_time_spec(until, now);
    if (!t) return core::make_error("--until: " + t.error().message);
    range.until_ms = *t;
  }
  return range;
}

}  // namespace gpuwatch::core
