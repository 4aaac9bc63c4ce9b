#pragma once
// The I/O edge of attribution: reads /proc/PID/{cgroup,environ,status,stat} under an injectable
// proc root (tests build fake /proc trees in a temp dir), then says what they mean (pure).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "attribution/attribution.hpp"
#include "attribution/process_environ.hpp"

namespace gpuwatch::attribution {

struct ProcFiles {
  std::optional<std::string> cgroup;   // absent: the process is gone, or not readable
  std::optional<std::string> environ;  // absent: not ours to read (another user's, without root)
  std::optional<std::string> status;
  std::optional<std::uint64_t> start_ticks;  // stat field 22: identifies the process across PID reuse
};

ProcFiles read_proc_files(unsigned pid, const std::string& proc_root);
// Only stat's start time: the cheap check that a cached PID is still the same process.
std::optional<std::uint64_t> read_proc_files_start_ticks(unsigned pid, const std::string& proc_root);

// stat field 22 (starttime, in clock ticks since boot) of a /proc/PID/stat line.
std::optional<std::uint64_t> start_ticks_of_stat(std::string_view stat_line);
// The innermost PID of status's "NSpid:" line when the process is in a nested PID namespace.
std::optional<unsigned> namespace_pid_of_status(const std::string& status);

// What the files say, before any API is asked: cgroup first, then the environment (Slurm
// variables), then status (NSpid). Pure.
Attribution attribution_of_files(const ProcFiles& files);

// The environment's facts (for matching pods by NVIDIA_VISIBLE_DEVICES and HOSTNAME).
EnvironFacts environ_facts_of(const ProcFiles& files);

}  // namespace gpuwatch::attribution
