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

SwapCounters parse_vmstat(std::string_view text) {
  SwapCounters out;
  for (std::string_view line : lines_of(text)) {
    const auto words = words_of(line);  // "pswpin 0"
    if (words.size() != 2) continue;
    if (words[0] == "pswpin") out.pages_in = unsigned_of(words[1]);
    else if (words[0] == "pswpout") out.pages_out = unsigned_of(words[1]);
  }
  return out;
}

}  // namespace gpuwatch::host_signals
