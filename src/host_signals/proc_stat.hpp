#pragma once
// /proc/stat's CPU lines (Documentation/filesystems/proc.rst, "1.7 Miscellaneous kernel
// statistics"): jiffies (USER_HZ ticks) spent in each state since boot, in total ("cpu") and per
// CPU ("cpu0"...). Old kernels lack the later columns (iowait 2.5.41, irq/softirq 2.6.0, steal
// 2.6.11): they are absent here, never 0. guest and guest_nice are already in user and nice.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gpuwatch::host_signals {

struct CpuTimes {
  std::uint64_t user = 0, nice = 0, system = 0, idle = 0;
  std::optional<std::uint64_t> iowait, irq, softirq, steal;
  // Every state's ticks together: the time the CPU(s) existed.
  std::uint64_t total() const;
  // Running code: user, nice, system, irq and softirq (iowait and steal are not busy).
  std::uint64_t busy() const;
};

struct ProcStat {
  std::optional<CpuTimes> total;                      // the "cpu" line
  std::vector<std::pair<unsigned, CpuTimes>> cores;  // "cpuN" lines, in file order (offline CPUs are missing)
};

ProcStat parse_proc_stat(std::string_view text);

}  // namespace gpuwatch::host_signals
