#include "host_signals/pressure.hpp"

#include "host_signals/words.hpp"

namespace gpuwatch::host_signals {
namespace {

// "some avg10=0.12 avg60=0.40 avg300=0.21 total=123456"
std::optional<PressureLine> pressure_line_of(const std::vector<std::string_view>& words) {
  PressureLine line;
  int found = 0;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto eq = words[i].find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = words[i].substr(0, eq), value = words[i].substr(eq + 1);
    if (key == "total") {
      if (auto v = unsigned_of(value)) line.total_us = *v, ++found;
      continue;
    }
    auto v = decimal_of(value);
    if (!v) continue;
    if (key == "avg10") line.avg10_percent = *v, ++found;
    else if (key == "avg60") line.avg60_percent = *v, ++found;
    else if (key == "avg300") line.avg300_percent = *v, ++found;
  }
  if (found != 4) return std::nullopt;
  return line;
}

}  // namespace

Pressure parse_pressure(std::string_view text) {
  Pressure out;
  for (std::string_view line : lines_of(text)) {
    const auto words = words_of(line);
    if (words.empty()) continue;
    if (words[0] == "some") out.some = pressure_line_of(words);
    else if (words[0] == "full") out.full = pressure_line_of(words);
  }
  return out;
}

}  // namespace gpuwatch::host_signals
