#pragma once
// Who runs a GPU process and what it is, read from /proc/<pid> (status: Uid ->
// user name, VmRSS; cmdline; comm; stat: CPU time). The simulator's stand-in processes
// are real processes, so this works on the simulated node too. The proc root is
// injectable for tests.
#include <chrono>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <string>

namespace gpuwatch::host {

struct ProcessInfo {
  std::optional<std::string> user;          // login name, or the numeric uid if it has none
  std::optional<std::string> command_line;  // arguments joined by spaces
  std::optional<std::string> name;          // /proc/<pid>/comm (at most 15 characters)
  std::optional<std::uint64_t> rss_bytes;   // resident memory (status: VmRSS); absent for kernel threads
  std::optional<double> cpu_seconds;        // user + system CPU time so far (stat: utime + stime)
  std::optional<double> cpu_ratio;          // CPU use over the last interval, 1.0 = one core (CpuTracker)
  bool cpu_over_lifetime = false;           // ... or, at a first reading, since the process started (as ps)
  std::optional<double> run_seconds;        // how long the process has run (stat: starttime, against /proc/uptime)
  // The program's base name: basename(argv[0]), or name when there is no command line.
  std::optional<std::string> command() const;
};

// Absent members: the process is gone, or not visible from this PID namespace.
ProcessInfo read_process_info(unsigned pid, const std::string& proc_root = "/proc");

// utime + stime of a /proc/<pid>/stat line, in seconds (TICKS_PER_SECOND: sysconf(_SC_CLK_TCK)).
// The command name in parentheses may hold spaces and ')': fields are counted after the last ')'.
std::optional<double> cpu_seconds_of_stat(const std::string& stat_line, long ticks_per_second);

// How long ago a process started, in seconds: its /proc/<pid>/stat starttime (field 22, clock
// ticks after boot) against UPTIME_TEXT, the contents of /proc/uptime ("12345.67 ...").
std::optional<double> run_seconds_of_stat(const std::string& stat_line, const std::string& uptime_text,
                                          long ticks_per_second);

// CPU % needs two readings of a process's CPU time: this remembers the last reading per PID
// across samples (`status -i`) and turns the next one into a ratio (1.0 = one core busy; may
// exceed 1 for a multithreaded process, as in top and nvtop). The clock is injectable.
class CpuTracker {
 public:
  using Clock = std::chrono::steady_clock;
  // Sets info.cpu_ratio from the previous reading of PID (if any and older than 0), then
  // remembers this one. Absent cpu_seconds: nothing to do.
  void update(unsigned pid, ProcessInfo& info, Clock::time_point now = Clock::now());
  // Whether PID has a reading to compare the next one with.
  bool knows(unsigned pid) const { return last_.count(pid) != 0; }
  // Forgets PIDs not in KEEP (processes that ended), so the cache stays small.
  template <typename Keep>
  void retain(const Keep& keep) {
    for (auto it = last_.begin(); it != last_.end();) it = keep.count(it->first) ? std::next(it) : last_.erase(it);
  }
  std::size_t size() const { return last_.size(); }

 private:
  struct Reading {
    double cpu_seconds;
    Clock::time_point at;
  };
  std::map<unsigned, Reading> last_;
};

}  // namespace gpuwatch::host
