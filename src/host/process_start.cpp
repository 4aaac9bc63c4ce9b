#include "host/process_start.hpp"

#include <fstream>
#include <sstream>

namespace gpuwatch::host {

std::optional<std::uint64_t> start_ticks_of_stat(const std::string& stat_line) {
  const auto close = stat_line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat_line.substr(close + 1));
  std::string token;
  for (int field = 3; field <= 22; ++field) {
    if (!(fields >> token)) return std::nullopt;
  }
  try {
    std::size_t used = 0;
    const std::uint64_t ticks = std::stoull(token, &used);
    if (used != token.size()) return std::nullopt;
    return ticks;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::uint64_t> process_start_ticks(std::int64_t pid, const std::string& proc_root) {
  if (pid <= 0 || pid > 0x3fffffff) return std::nullopt;
  std::ifstream stat(proc_root + "/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!stat || !std::getline(stat, line)) return std::nullopt;
  return start_ticks_of_stat(line);
}

}  // namespace gpuwatch::host
