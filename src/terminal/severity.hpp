#pragma once
// Colour by severity, not by column: a value is Ok (plain), Warn (yellow) or Critical (red)
// against its own limit. The thresholds, documented in docs/cli.md (`status`):
//   temperature  Warn >= slowdown - 15 C, Critical >= slowdown - 5 C, against the GPU's own
//                slowdown threshold (the driver's temperature threshold); when the GPU does not
//                report one: Warn >= 75 C, Critical >= 85 C
//   memory used  Warn >= 80 %, Critical >= 95 % of the total
//   power draw   Warn >= 90 %, Critical >= 98 % of the enforced limit
// Absent values have no severity (they print a grey N/A).
#include <optional>

#include "terminal/style.hpp"

namespace gpuwatch::terminal {

enum class Severity { Ok, Warn, Critical };

inline constexpr double kTemperatureWarnBelowSlowdownC = 15;
inline constexpr double kTemperatureCriticalBelowSlowdownC = 5;
inline constexpr double kTemperatureWarnC = 75;      // without a slowdown threshold
inline constexpr double kTemperatureCriticalC = 85;  // without a slowdown threshold
inline constexpr double kMemoryWarnRatio = 0.80;
inline constexpr double kMemoryCriticalRatio = 0.95;
inline constexpr double kPowerWarnRatio = 0.90;
inline constexpr double kPowerCriticalRatio = 0.98;

Severity temperature_severity(std::optional<double> celsius, std::optional<double> slowdown_celsius);
// VALUE / LIMIT against the ratios; Ok when either is absent or LIMIT is not positive.
Severity ratio_severity(std::optional<double> value, std::optional<double> limit, double warn, double critical);
Severity memory_severity(std::optional<double> used, std::optional<double> total);
Severity power_severity(std::optional<double> draw, std::optional<double> limit);

// Ok: Plain, Warn: Yellow, Critical: BoldRed.
Color severity_color(Severity severity);

}  // namespace gpuwatch::terminal
