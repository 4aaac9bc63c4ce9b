#pragma once
// Durations in a rules file, in Prometheus' grammar: a number and a unit, repeated, largest
// unit first: "30s", "5m", "1h", "1d", "1h30m", "500ms", "0s" (y, w, d, h, m, s, ms).
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::alerts {

using Duration = std::chrono::milliseconds;

// nullopt when TEXT is not such a duration (a bare number is not: a unit is required).
std::optional<Duration> parse_duration(std::string_view text);

// The shortest form in the same grammar: 300000 ms -> "5m", 5400000 ms -> "1h30m", 0 -> "0s".
std::string format_duration(Duration duration);

inline constexpr const char* kDurationHint = "use 30s, 5m, 1h";

}  // namespace gpuwatch::alerts
