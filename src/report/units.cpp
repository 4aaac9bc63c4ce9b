#include "report/units.hpp"

#include <fmt/core.h>

#include <cmath>
#include <ctime>
#include <cstdlib>

namespace gpuwatch::report {
namespace {

// Three significant digits, at least none and at most two decimals: 0.42, 1.23, 12.3, 123, 1,234.
std::string three_digits(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude >= 100) return grouped_number(value, 0);
  if (magnitude >= 10) return fmt::format("{:.1f}", value);
  return fmt::format("{:.2f}", value);
}

std::tm broken_down(std::int64_t unix_ms, TimeStyle style) {
  const auto seconds = static_cast<std::time_t>(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
  std::tm tm{};
  if (style.utc) {
    gmtime_r(&seconds, &tm);
  } else {
    localtime_r(&seconds, &tm);
  }
  return tm;
}

}  // namespace

std::string energy_text(const std::optional<double>& kwh) {
  if (!kwh) return "N/A";
  const double wh = *kwh * 1000.0;
  if (wh > 0 && wh < 0.005) return "< 0.01 Wh";
  // 999.5 Wh and more would round to "1,000 Wh": "1.00 kWh".
  if (std::fabs(wh) >= 999.5) return three_digits(*kwh) + " kWh";
  return three_digits(wh) + " Wh";
}

std::string energy_text(const std::optional<double>& kwh, bool estimated) {
  return (kwh && estimated ? "~" : "") + energy_text(kwh);
}

std::string temperature_text(const std::optional<double>& celsius) {
  return celsius ? fmt::format("{:.0f} °C", *celsius) : std::string("N/A");
}

std::string grouped_number(double value, int decimals) {
  std::string digits = fmt::format("{:.{}f}", std::fabs(value), decimals);
  if (digits.find_first_not_of("0.") == std::string::npos) value = 0;  // no "-0"
  const std::size_t point = digits.find('.');
  std::string whole = digits.substr(0, point), out;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && (whole.size() - i) % 3 == 0) out += ',';
    out += whole[i];
  }
  if (point != std::string::npos) out += digits.substr(point);
  return (value < 0 ? "-" : "") + out;
}

std::string share_text(double share) {
  const double percent = share * 100.0;
  if (percent > 0 && percent < 0.5) return "< 1 %";
  return fmt::format("{:.0f} %", percent);
}

std::string time_text(std::int64_t unix_ms, TimeStyle style) {
  const std::tm t = broken_down(unix_ms, style);
  return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour,
                     t.tm_min, t.tm_sec);
}

std::string time_of_day_text(std::int64_t unix_ms, TimeStyle style) {
  const std::tm t = broken_down(unix_ms, style);
  return fmt::format("{:02}:{:02}:{:02}", t.tm_hour, t.tm_min, t.tm_sec);
}

std::string zone_text(std::int64_t unix_ms, TimeStyle style) {
  if (style.utc) return "UTC";
  const std::tm t = broken_down(unix_ms, style);
  long offset_min = t.tm_gmtoff / 60;
  if (offset_min == 0) return "UTC";
  const char sign = offset_min < 0 ? '-' : '+';
  offset_min = std::labs(offset_min);
  return fmt::format("UTC{}{:02}:{:02}", sign, offset_min / 60, offset_min % 60);
}

std::string span_text(std::int64_t first_ms, std::int64_t last_ms, TimeStyle style) {
  const std::string first = time_text(first_ms, style), last = time_text(last_ms, style);
  if (first.compare(0, 10, last, 0, 10) == 0) return first + " – " + last.substr(11);
  return first + " – " + last;
}

}  // namespace gpuwatch::report
