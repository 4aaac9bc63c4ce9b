#include "sim/engine/value_limits.hpp"

#include <cmath>
#include <fmt/format.h>

namespace gpuwatch::sim {

std::string value_range_problem(Key key, double value) {
  if (!std::isfinite(value)) return "not a finite number";
  // Watts are served as uint32 milliwatts; every other value stays far below 1e15.
  const bool milliwatts = key_info(key).nvml_source.find("mW") != std::string_view::npos;
  const double limit = milliwatts ? 4294967.295 : 1e15;
  if (std::fabs(value) <= limit) return "";
  return fmt::format("out of range: give at most {}{}", limit, milliwatts ? " (watts, served in uint32 milliwatts)" : "");
}

std::string clip_for_message(std::string_view text) {
  constexpr std::size_t kShown = 200;
  if (text.size() <= kShown) return std::string(text);
  std::size_t cut = kShown;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
  return std::string(text.substr(0, cut)) + "…";
}

}  // namespace gpuwatch::sim
