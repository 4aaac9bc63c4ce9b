#include "alerts/duration.hpp"

#include <array>
#include <cctype>
#include <cstdint>
#include <limits>
#include <utility>

namespace gpuwatch::alerts {
namespace {

struct UnitInfo {
  std::string_view name;
  std::int64_t ms;
};
// Largest first: the order a duration must use (as Prometheus' model.ParseDuration).
constexpr std::array<UnitInfo, 7> kUnits{{{"y", 365LL * 86400000},
                                          {"w", 7LL * 86400000},
                                          {"d", 86400000},
                                          {"h", 3600000},
                                          {"m", 60000},
                                          {"s", 1000},
                                          {"ms", 1}}};

}  // namespace

std::optional<Duration> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::size_t i = 0;
  std::int64_t total = 0;
  std::size_t last_unit = 0;  // index into kUnits + 1 of the previous unit (0: none yet)
  while (i < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return std::nullopt;
    std::int64_t n = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      // Any count whose total fits (format_duration writes 1277501750d for 182500250w; the old
      // cap of 1e9 per number refused it), never past int64.
      const int digit = text[i] - '0';
      if (n > (std::numeric_limits<std::int64_t>::max() - digit) / 10) return std::nullopt;
      n = n * 10 + digit;
      ++i;
    }
    std::size_t start = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string_view unit = text.substr(start, i - start);
    std::size_t u = 0;
    while (u < kUnits.size() && kUnits[u].name != unit) ++u;
    if (u == kUnits.size()) return std::nullopt;
    if (last_unit != 0 && u + 1 <= last_unit) return std::nullopt;  // units must decrease: 1h30m, not 30m1h
    last_unit = u + 1;
    // Beyond what int64 milliseconds hold (about 292 million years, e.g. 1000000000y): not a
    // duration, as Prometheus' "duration out of range"; never a signed overflow.
    if (n > (std::numeric_limits<std::int64_t>::max() - total) / kUnits[u].ms) return std::nullopt;
    total += n * kUnits[u].ms;
  }
  return Duration(total);
}

std::string format_duration(Duration duration) {
  std::int64_t ms = duration.count();
  if (ms == 0) return "0s";
  std::string out;
  if (ms < 0) {
    out = "-";
    ms = -ms;
  }
  // Prometheus writes weeks and years only when they divide exactly; days, hours, minutes,
  // seconds and milliseconds otherwise. Keep to d/h/m/s/ms, which every reader knows.
  for (const auto& u : kUnits) {
    if (u.name == "y" || u.name == "w") continue;
    if (ms >= u.ms) {
      out += std::to_string(ms / u.ms);
      out += u.name;
      ms %= u.ms;
    }
  }
  return out;
}

}  // namespace gpuwatch::alerts
