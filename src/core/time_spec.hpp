#pragma once
// Times and durations on the command line of `record` and `history`, and the
// ISO-8601 timestamps they print. Pure functions (the clock is passed in).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/result.hpp"

namespace gpuwatch::core {

// "500ms", "1s", "1.5s", "2m", "2h", "7d", "1w"; a bare number is seconds. Must be > 0.
// Every interval and duration flag of every command reads this one grammar.
core::Result<std::chrono::milliseconds> parse_duration(const std::string& text);

// The grammar in words, for error messages and help.
inline constexpr const char* kDurationGrammar =
    "give seconds (1, 2.5) or a number and a unit (500ms, 1s, 2m, 1h, 7d)";

// A point in time, as Unix milliseconds:
//   a duration ("2h": that long before NOW), "now", "@1700000000" (Unix seconds),
//   "2026-11-29", "2026-11-29T14:00", "2026-11-29 14:00:05.250", with an optional
//   "Z" / "+01:00" / "-0530" zone; without a zone, local time.
core::Result<std::int64_t> parse_time_spec(const std::string& text, std::chrono::system_clock::time_point now);

// --since / --until of `history` and `report`: each a time spec as above; "" leaves that end
// open, and "all" as SINCE means from the first sample. Errors name the option.
struct TimeRange {
  std::optional<std::int64_t> since_ms, until_ms;  // Unix ms, inclusive
};
core::Result<TimeRange> parse_time_range(const std::string& since, const std::string& until,
                                         std::chrono::system_clock::time_point now);

// "2026-11-29T15:02:14.123+01:00": local time, milliseconds, the zone's offset.
std::string format_iso8601(std::chrono::system_clock::time_point t);

}  // namespace gpuwatch::core
