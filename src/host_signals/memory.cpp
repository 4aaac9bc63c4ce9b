#include "host_signals/memory.hpp"

#include "host_signals/words.hpp"

namespace gpuwatch::host_signals {

MemInfo parse_meminfo(std::string_view text) {
  MemInfo out;
  for (std::string_view line : lines_of(text)) {
    const auto words = words_of(line);  // "MemTotal:       16310176 kB"
    if (words.size() < 2) continue;
    auto value = unsigned_of(words[1]);
    if (!value) continue;
    const std::uint64_t scale = words.size() >= 3 && words[2] == "kB" ? 1024 : 1;
    const std::uint64_t bytes = *value * scale;
    if (words[0] == "MemTotal:") out.total_bytes = bytes;
    else if (words[0] == "MemAvailable:") out.available_bytes = bytes;
    else if (words[0] == "SwapTotal:") out.swap_total_bytes = bytes;
    else if (words[0] == "SwapFree:") out.swap_free_bytes = bytes;
  }
  return out;
}

namespace {

// The number after KEY at the start of a line of TEXT ("pswpin 12"). /proc/vmstat has ~170 lines
// and the swap counters are 2 of them: the lines are found, not all split into words.
std::optional<std::uint64_t> vmstat_value(std::string_view text, std::string_view key) {
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    if (line.size() > key.size() && line.starts_with(key) && (line[key.size()] == ' ' || line[key.size()] == '\t')) {
      const auto words = words_of(line);
      return words.size() == 2 ? unsigned_of(words[1]) : std::nullopt;
    }
    at = end + 1;
  }
  return std::nullopt;
}

}  // namespace

SwapCounters parse_vmstat(std::string_view text) {
  SwapCounters out;
  out.pages_in = vmstat_value(text, "pswpin");
  out.pages_out = vmstat_value(text, "pswpout");
  return out;
}

}  // namespace gpuwatch::host_signals
