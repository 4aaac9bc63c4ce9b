#pragma once
// How the report writes numbers, units and times (text and HTML alike). Pure functions.
//  * energy: Wh below 1 kWh, else kWh, three significant digits ("0.42 Wh", "12.3 Wh",
//    "1.23 kWh", "1,234 kWh"); a tiny positive amount is "< 0.01 Wh", never "2e-05 kWh";
//  * temperature: "66 °C";
//  * large numbers with a thousands separator ("1,980");
//  * times as `gpuwatch status` writes them ("2026-11-30 08:05:54"), in the local time zone,
//    or in UTC with `report --utc`; the zone is named once ("UTC", "UTC+01:00").
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace gpuwatch::report {

inline constexpr double kMiB = 1024.0 * 1024.0, kGiB = kMiB * 1024.0;

// A time point as Unix milliseconds, the history's unit.
inline std::int64_t unix_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

struct TimeStyle {
  bool utc = false;  // false: the local time zone
};

// "N/A" when absent.
std::string energy_text(const std::optional<double>& kwh);
// A GPU's energy: "~" before it when ESTIMATED (integrated power, no energy counter; issue 29).
std::string energy_text(const std::optional<double>& kwh, bool estimated);
std::string temperature_text(const std::optional<double>& celsius);
// VALUE rounded to DECIMALS, with "," between thousands: "1,980", "12,345.6", "-1,000".
std::string grouped_number(double value, int decimals = 0);
// A share 0..1 as a whole percent: "68 %" (a non-zero share below 0.5 % is "< 1 %").
std::string share_text(double share);

// "2026-11-30 08:05:54" (Unix ms, seconds truncated as `status` does).
std::string time_text(std::int64_t unix_ms, TimeStyle style);
// "08:05:54".
std::string time_of_day_text(std::int64_t unix_ms, TimeStyle style);
// The zone TIME_TEXT uses at UNIX_MS: "UTC", or the local offset "UTC+01:00" / "UTC-05:30".
std::string zone_text(std::int64_t unix_ms, TimeStyle style);
// FIRST .. LAST: "2026-11-30 08:00:00 – 08:06:00" on one day, else both in full.
std::string span_text(std::int64_t first_ms, std::int64_t last_ms, TimeStyle style);

}  // namespace gpuwatch::report
