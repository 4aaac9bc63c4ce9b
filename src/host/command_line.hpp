#pragma once
// A process's command line alone, from /proc/PID/cmdline, read with a bound: what the
// recorder asks for every process every sample (store/process_commands.hpp), so it reads one
// small file, never more than MAX_BYTES of a huge argv. The proc root is injectable for tests.
#include <cstddef>
#include <optional>
#include <string>

namespace gpuwatch::host {

// /proc/PID/cmdline's arguments joined by spaces (as ProcessInfo::command_line), at most
// MAX_BYTES of it read. nullopt: no such process, not readable, or empty (a kernel thread,
// a zombie).
std::optional<std::string> read_command_line(unsigned pid, std::size_t max_bytes, const std::string& proc_root = "/proc");

// The text of a cmdline file: NUL-separated arguments joined by spaces, trailing NULs dropped.
std::string join_cmdline(std::string raw);

}  // namespace gpuwatch::host
