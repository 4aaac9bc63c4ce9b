#include "terminal/units.hpp"

#include <cmath>

namespace gpuwatch::terminal {

std::optional<std::int64_t> whole_watts(const core::FieldReading& reading) {
  auto w = reading.as_double();
  if (!w) return std::nullopt;
  return static_cast<std::int64_t>(std::floor(*w + 1e-6));  // 68.9999999 from 69000 mW is 69
}

std::optional<std::int64_t> whole_percent(const std::optional<double>& ratio) {
  if (!ratio) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(*ratio * 100.0));
}

std::optional<std::int64_t> whole_percent(const core::FieldReading& reading) {
  return whole_percent(reading.as_double());
}

std::optional<std::int64_t> whole_mhz(const core::FieldReading& reading) {
  auto hz = reading.as_double();
  if (!hz) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(*hz / 1e6));
}

std::optional<std::int64_t> whole_mib(const std::optional<std::uint64_t>& bytes) {
  if (!bytes) return std::nullopt;
  return static_cast<std::int64_t>(*bytes / (1024ull * 1024ull));
}

std::optional<std::int64_t> whole_mib(const core::FieldReading& reading) { return whole_mib(reading.as_uint()); }

std::optional<std::int64_t> whole_number(const core::FieldReading& reading) { return reading.as_int(); }

}  // namespace gpuwatch::terminal
