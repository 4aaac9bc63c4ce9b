#include "recorder/size.hpp"

#include <cmath>
#include <regex>

namespace gpuwatch::recorder {

core::Result<std::int64_t> parse_byte_size(const std::string& text) {
  static const std::regex pattern(R"(^\s*([0-9]+(?:\.[0-9]+)?)\s*(?:([kKMGT])(?:iB|B)?|B)?\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) {
    return core::make_error("cannot read the size '" + text + "': use a number and a unit, e.g. 500k, 100M, 2G");
  }
  double bytes = std::stod(m[1].str());
  if (m[2].matched) {
    const char unit = m[2].str()[0];
    const int power = unit == 'k' || unit == 'K' ? 1 : unit == 'M' ? 2 : unit == 'G' ? 3 : 4;
    bytes *= std::pow(1024.0, power);
  }
  if (bytes < 1 || bytes > 9e18) return core::make_error("the size '" + text + "' is out of range");
  return static_cast<std::int64_t>(std::llround(bytes));
}

}  // namespace gpuwatch::recorder
