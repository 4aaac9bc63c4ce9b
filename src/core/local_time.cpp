#include "core/local_time.hpp"

#include <ctime>

#include <fmt/chrono.h>

namespace gpuwatch::core {

std::string format_local_time(std::int64_t unix_ms) {
  const auto seconds = static_cast<std::time_t>(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
  std::tm tm{};
  localtime_r(&seconds, &tm);
  return fmt::format("{:%Y-%m-%d %H:%M:%S}", tm);
}

}  // namespace gpuwatch::core
