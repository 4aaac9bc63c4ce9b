#include "host_signals/proc_stat.hpp"

#include "host_signals/words.hpp"

namespace gpuwatch::host_signals {

std::uint64_t CpuTimes::total() const {
  return user + nice + system + idle + iowait.value_or(0) + irq.value_or(0) + softirq.value_or(0) + steal.value_or(0);
}

std::uint64_t CpuTimes::busy() const { return user + nice + system + irq.value_or(0) + softirq.value_or(0); }

namespace {

std::optional<CpuTimes> cpu_times_of(const std::vector<std::string_view>& words) {
  if (words.size() < 5) return std::nullopt;
  std::vector<std::optional<std::uint64_t>> v;
  for (std::size_t i = 1; i < words.size() && i <= 8; ++i) v.push_back(unsigned_of(words[i]));
  for (std::size_t i = 0; i < 4; ++i)
    if (!v[i]) return std::nullopt;
  v.resize(8);
  return CpuTimes{*v[0], *v[1], *v[2], *v[3], v[4], v[5], v[6], v[7]};
}

}  // namespace

ProcStat parse_proc_stat(std::string_view text) {
  ProcStat out;
  for (std::string_view line : lines_of(text)) {
    if (line.substr(0, 3) != "cpu") continue;
    const auto words = words_of(line);
    if (words.empty()) continue;
    auto times = cpu_times_of(words);
    if (!times) continue;
    if (words[0] == "cpu") {
      out.total = *times;
    } else if (auto index = unsigned_of(words[0].substr(3))) {
      out.cores.emplace_back(static_cast<unsigned>(*index), *times);
    }
  }
  return out;
}

}  // namespace gpuwatch::host_signals
