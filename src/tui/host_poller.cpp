#include "tui/host_poller.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <vector>

#include "tui/process_tree.hpp"

namespace gpuwatch::tui {

std::optional<double> elapsed_seconds_of(const std::string& stat_line, const std::string& uptime_text,
                                         long ticks_per_second) {
  if (ticks_per_second <= 0) return std::nullopt;
  auto close = stat_line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat_line.substr(close + 1));
  std::string field;
  // After the command: field 3 (state) ... field 22 (starttime) is the 20th.
  for (int i = 0; i < 20; ++i) {
    if (!(fields >> field)) return std::nullopt;
  }
  double uptime = 0;
  std::istringstream up(uptime_text);
  if (!(up >> uptime)) return std::nullopt;
  try {
    double start = static_cast<double>(std::stoull(field)) / static_cast<double>(ticks_per_second);
    if (start > uptime + 1) return std::nullopt;
    return std::max(uptime - start, 0.0);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<std::uint32_t> parent_pid_of(const std::string& stat_line) {
  auto close = stat_line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat_line.substr(close + 1));
  std::string state, ppid;
  if (!(fields >> state >> ppid)) return std::nullopt;
  try {
    unsigned long v = std::stoul(ppid);
    if (v > UINT32_MAX) return std::nullopt;
    return static_cast<std::uint32_t>(v);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string start_time_of(const std::string& stat_line) {
  auto close = stat_line.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(stat_line.substr(close + 1));
  std::string field;
  for (int i = 0; i < 20; ++i) {  // field 3 (state) ... field 22 (starttime)
    if (!(fields >> field)) return {};
  }
  return field;
}

std::optional<std::uint64_t> rss_of_statm(const std::string& statm_text, long page_size) {
  if (page_size <= 0) return std::nullopt;
  std::istringstream fields(statm_text);
  std::uint64_t size = 0, resident = 0;
  if (!(fields >> size >> resident)) return std::nullopt;
  return resident * static_cast<std::uint64_t>(page_size);
}

namespace {

// One read(2) of a small /proc file (no iostream: this runs for every process every pass).
std::optional<std::string> read_small_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buffer[4096];
  std::string text;
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > 65536) break;
  }
  ::close(fd);
  return text;
}

}  // namespace

HostPoller::HostPoller(std::chrono::milliseconds period, std::string proc_root)
    : period_(period), proc_root_(std::move(proc_root)) {}

HostPoller::~HostPoller() { stop(); }

void HostPoller::start() {
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      poll_once();
      lock.lock();
      wake_.wait_for(lock, period_, [this] { return stopping_ || new_pids_; });
    }
  });
}

void HostPoller::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void HostPoller::want(const std::set<std::uint32_t>& pids) {
  std::lock_guard lock(mutex_);
  for (auto pid : pids) {
    if (!wanted_.count(pid)) new_pids_ = true;
  }
  if (new_pids_ || pids.size() != wanted_.size()) wanted_ = pids;
  if (new_pids_) wake_.notify_all();
}

std::map<std::uint32_t, HostProcess> HostPoller::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

void HostPoller::want_ancestors(bool on) {
  std::lock_guard lock(mutex_);
  if (on == ancestors_) return;
  ancestors_ = on;
  new_pids_ = true;  // read them now, not in 2 s
  wake_.notify_all();
}

std::map<std::uint32_t, HostProcess> HostPoller::latest_ancestors() const {
  std::lock_guard lock(mutex_);
  return latest_ancestors_;
}

HostProcess HostPoller::read(std::uint32_t pid, const std::string& uptime) {
  static const long ticks = sysconf(_SC_CLK_TCK);
  static const long page_size = sysconf(_SC_PAGESIZE);
  const std::string dir = proc_root_ + "/" + std::to_string(pid);
  auto stat = read_small_file(dir + "/stat");
  if (!stat || stat->empty()) {  // gone
    known_.erase(pid);
    return {};
  }
  while (!stat->empty() && stat->back() == '\n') stat->pop_back();
  const std::string start = start_time_of(*stat);
  HostProcess p;
  auto known = known_.find(pid);
  std::optional<std::string> statm;
  if (known != known_.end() && !start.empty() && known->second.start == start &&
      (statm = read_small_file(dir + "/statm"))) {
    // The same process as before: user and command line stay; what changes comes from stat and statm.
    p = known->second.process;
    p.info.cpu_ratio.reset();
    p.info.cpu_seconds = host::cpu_seconds_of_stat(*stat, ticks);
    p.info.rss_bytes = rss_of_statm(*statm, page_size);
  } else {
    p.info = host::read_process_info(pid, proc_root_);
  }
  p.elapsed_seconds = elapsed_seconds_of(*stat, uptime, ticks);
  p.info.run_seconds = p.elapsed_seconds;
  p.ppid = parent_pid_of(*stat);
  cpu_.update(pid, p.info);
  known_[pid] = Known{start, p};
  return p;
}

void HostPoller::poll_once() {
  std::set<std::uint32_t> pids;
  bool with_ancestors = false;
  {
    std::lock_guard lock(mutex_);
    pids = wanted_;
    with_ancestors = ancestors_;
    new_pids_ = false;
  }
  const std::string uptime = read_small_file(proc_root_ + "/uptime").value_or("");
  std::map<std::uint32_t, HostProcess> out;
  for (auto pid : pids) out[pid] = read(pid, uptime);
  std::map<std::uint32_t, HostProcess> above;
  if (with_ancestors) {
    for (const auto& [pid, p] : out) {
      std::optional<std::uint32_t> parent = p.ppid;
      for (int level = 0; level < kMaxTreeAncestors && parent && *parent > 1; ++level) {
        if (pids.count(*parent)) break;  // a GPU process: read already
        auto [at, added] = above.try_emplace(*parent);
        if (added) at->second = read(*parent, uptime);
        parent = at->second.ppid;
      }
    }
  }
  std::map<std::uint32_t, HostProcess> tracked = out;
  tracked.insert(above.begin(), above.end());
  cpu_.retain(tracked);
  for (auto it = known_.begin(); it != known_.end();) it = tracked.count(it->first) ? std::next(it) : known_.erase(it);
  std::lock_guard lock(mutex_);
  latest_ = std::move(out);
  latest_ancestors_ = std::move(above);
}

}  // namespace gpuwatch::tui
