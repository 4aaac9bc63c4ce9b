#pragma once
// Who runs a GPU process and what it is, read from /proc/<pid> (status: Uid ->
// user name; cmdline; comm). The simulator's stand-in processes are real processes,
// so this works on the simulated node too. The proc root is injectable for tests.
#include <optional>
#include <string>

namespace gpuwatch::host {

struct ProcessInfo {
  std::optional<std::string> user;          // login name, or the numeric uid if it has none
  std::optional<std::string> command_line;  // arguments joined by spaces
  std::optional<std::string> name;          // /proc/<pid>/comm (at most 15 characters)
  // The program's base name: basename(argv[0]), or name when there is no command line.
  std::optional<std::string> command() const;
};

// Absent members: the process is gone, or not visible from this PID namespace.
ProcessInfo read_process_info(unsigned pid, const std::string& proc_root = "/proc");

}  // namespace gpuwatch::host
