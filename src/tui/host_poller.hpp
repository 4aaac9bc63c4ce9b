#pragma once
// What /proc says about the GPU processes (user, command line, CPU %, RSS, run time), read on
// its own thread every PERIOD (2 s, as nvitop does), so a slow /proc read never delays a redraw.
// The UI says which PIDs it wants (want) and takes the latest readings (latest). A process seen
// before (same PID and start time) costs two reads a pass (stat and statm: CPU time, RSS, run
// time, parent); its user and command line are read once, when it first appears. Those two files
// stay open between passes (a pass re-reads each with one pread(2)) while the process is shown.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "tui/model.hpp"

namespace gpuwatch::tui {

// Seconds PID has run: its start time (/proc/<pid>/stat field 22, in clock ticks after boot)
// against the uptime (/proc/uptime). Pure: STAT_LINE and UPTIME_TEXT are the files' contents.
std::optional<double> elapsed_seconds_of(const std::string& stat_line, const std::string& uptime_text,
                                         long ticks_per_second);
// The parent PID of a /proc/<pid>/stat line (field 4). Pure.
std::optional<std::uint32_t> parent_pid_of(const std::string& stat_line);
// The start time token of a /proc/<pid>/stat line (field 22): with the PID, it names one process
// (a reused PID has another). Empty when the line has no such field. Pure.
std::string start_time_of(const std::string& stat_line);
// Resident bytes from /proc/<pid>/statm (its second field, in pages of PAGE_SIZE bytes). Pure.
std::optional<std::uint64_t> rss_of_statm(const std::string& statm_text, long page_size);

class HostPoller {
 public:
  explicit HostPoller(std::chrono::milliseconds period = std::chrono::seconds(2), std::string proc_root = "/proc");
  ~HostPoller();
  HostPoller(const HostPoller&) = delete;
  HostPoller& operator=(const HostPoller&) = delete;

  void start();
  void stop();
  // The PIDs to read; a new PID is read at once (the thread wakes), known ones every period.
  void want(const std::set<std::uint32_t>& pids);
  // Also read the processes above the wanted ones (at most kMaxTreeAncestors levels, never PID 1):
  // the tree view. Off by default, so the plain view costs no extra /proc reads.
  void want_ancestors(bool on);
  std::map<std::uint32_t, HostProcess> latest() const;
  std::map<std::uint32_t, HostProcess> latest_ancestors() const;
  // One pass now on the calling thread (tests).
  void poll_once();

 private:
  std::chrono::milliseconds period_;
  std::string proc_root_;
  host::CpuTracker cpu_;  // poll thread only
  struct Known {
    std::string start;  // stat's start time: the same process while it matches
    HostProcess process;
  };
  std::map<std::uint32_t, Known> known_;  // poll thread only
  // A /proc file kept open between passes (poll thread only).
  struct OpenFile {
    int fd = -1;
    OpenFile() = default;
    OpenFile(OpenFile&& other) noexcept;
    OpenFile& operator=(OpenFile&& other) noexcept;
    ~OpenFile();
    // Its whole text, from the open file, else opened (again) from PATH; nullopt: cannot be read.
    std::optional<std::string> read(const std::string& path);
  };
  struct Files {
    OpenFile stat, statm;
  };
  std::map<std::uint32_t, Files> files_;  // the processes read last pass
  OpenFile uptime_;
  HostProcess read(std::uint32_t pid, const std::string& uptime);
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool new_pids_ = false;
  bool ancestors_ = false;
  std::set<std::uint32_t> wanted_;
  std::map<std::uint32_t, HostProcess> latest_;
  std::map<std::uint32_t, HostProcess> latest_ancestors_;
  std::thread thread_;
};

}  // namespace gpuwatch::tui
