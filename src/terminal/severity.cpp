#include "terminal/severity.hpp"

namespace gpuwatch::terminal {

Severity temperature_severity(std::optional<double> celsius, std::optional<double> slowdown_celsius) {
  if (!celsius) return Severity::Ok;
  const bool own = slowdown_celsius && *slowdown_celsius > 0;
  const double critical = own ? *slowdown_celsius - kTemperatureCriticalBelowSlowdownC : kTemperatureCriticalC;
  const double warn = own ? *slowdown_celsius - kTemperatureWarnBelowSlowdownC : kTemperatureWarnC;
  if (*celsius >= critical) return Severity::Critical;
  if (*celsius >= warn) return Severity::Warn;
  return Severity::Ok;
}

Severity ratio_severity(std::optional<double> value, std::optional<double> limit, double warn, double critical) {
  if (!value || !limit || *limit <= 0) return Severity::Ok;
  const double ratio = *value / *limit;
  if (ratio >= critical) return Severity::Critical;
  if (ratio >= warn) return Severity::Warn;
  return Severity::Ok;
}

Severity memory_severity(std::optional<double> used, std::optional<double> total) {
  return ratio_severity(used, total, kMemoryWarnRatio, kMemoryCriticalRatio);
}

Severity power_severity(std::optional<double> draw, std::optional<double> limit) {
  return ratio_severity(draw, limit, kPowerWarnRatio, kPowerCriticalRatio);
}

Color severity_color(Severity severity) {
  switch (severity) {
    case Severity::Ok: return Color::Plain;
    case Severity::Warn: return Color::Yellow;
    case Severity::Critical: return Color::BoldRed;
  }
  return Color::Plain;
}

}  // namespace gpuwatch::terminal
