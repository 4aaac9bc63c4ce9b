#pragma once
// The CPU of a process tree: utime + stime (/proc/<pid>/stat fields 14 and 15) of some root
// processes and all their live descendants, e.g. a training process and its DataLoader workers.
// Children come from /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN) when the kernel has
// it, else from a scan of every process's parent (field 4). Descendants that have ended are not
// counted (their time went to the parent's cutime, which a live rate should not see again).
#include <cstdint>
#include <optional>
#include <set>
#include <string_view>

#include "host_signals/host_files.hpp"

namespace gpuwatch::host_signals {

struct ProcessStat {
  unsigned ppid = 0;
  std::uint64_t cpu_ticks = 0;  // utime + stime, in USER_HZ ticks
};

// One /proc/<pid>/stat line; the command in parentheses may hold spaces and ')'.
std::optional<ProcessStat> parse_process_stat(std::string_view text);

struct TreeCpu {
  std::uint64_t cpu_ticks = 0;  // of every process in the trees, each once
  std::size_t processes = 0;
};

// The trees of ROOTS under FILES' /proc; absent when no root is alive.
std::optional<TreeCpu> process_tree_cpu(const HostFiles& files, const std::set<unsigned>& roots);

}  // namespace gpuwatch::host_signals
