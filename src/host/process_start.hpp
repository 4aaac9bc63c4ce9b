#pragma once
// When a process started, as the kernel counts it: /proc/PID/stat field 22 (clock ticks after
// boot). A PID with the same start is the same process; a PID reused later has another start.
// `gpuwatch run` records its own (store/jobs.hpp) so a later reader can tell it died (issue 31).
#include <cstdint>
#include <optional>
#include <string>

namespace gpuwatch::host {

// Field 22 of a /proc/PID/stat line (fields counted after the last ')', as the name may hold one).
std::optional<std::uint64_t> start_ticks_of_stat(const std::string& stat_line);

// PID's start, or nullopt when there is no such process (or it is not visible from here).
std::optional<std::uint64_t> process_start_ticks(std::int64_t pid, const std::string& proc_root = "/proc");

}  // namespace gpuwatch::host
