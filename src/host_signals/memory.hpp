#pragma once
// Memory and swap: /proc/meminfo (Documentation/filesystems/proc.rst, "meminfo"; kB, converted
// to bytes here; MemAvailable since 3.14) and /proc/vmstat's pswpin / pswpout (pages swapped
// in and out since boot). A line the kernel lacks is absent, never 0.
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuwatch::host_signals {

struct MemInfo {
  std::optional<std::uint64_t> total_bytes, available_bytes, swap_total_bytes, swap_free_bytes;
};

struct SwapCounters {
  std::optional<std::uint64_t> pages_in, pages_out;
};

MemInfo parse_meminfo(std::string_view text);
SwapCounters parse_vmstat(std::string_view text);

}  // namespace gpuwatch::host_signals
