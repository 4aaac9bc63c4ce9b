#include "tui/host_poller.hpp"

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

void HostPoller::poll_once() {
  std::set<std::uint32_t> pids;
  bool with_ancestors = false;
  {
    std::lock_guard lock(mutex_);
    pids = wanted_;
    with_ancestors = ancestors_;
    new_pids_ = false;
  }
  std::string uptime;
  {
    std::ifstream in(proc_root_ + "/uptime");
    std::getline(in, uptime);
  }
  const long ticks = sysconf(_SC_CLK_TCK);
  const auto read = [&](std::uint32_t pid) {
    HostProcess p;
    p.info = host::read_process_info(pid, proc_root_);
    cpu_.update(pid, p.info);
    std::ifstream stat(proc_root_ + "/" + std::to_string(pid) + "/stat");
    std::string line;
    if (std::getline(stat, line)) {
      p.elapsed_seconds = elapsed_seconds_of(line, uptime, ticks);
      p.ppid = parent_pid_of(line);
    }
    return p;
  };
  std::map<std::uint32_t, HostProcess> out;
  for (auto pid : pids) out[pid] = read(pid);
  std::map<std::uint32_t, HostProcess> above;
  if (with_ancestors) {
    for (const auto& [pid, p] : out) {
      std::optional<std::uint32_t> parent = p.ppid;
      for (int level = 0; level < kMaxTreeAncestors && parent && *parent > 1; ++level) {
        if (pids.count(*parent)) break;  // a GPU process: read already
        auto [at, added] = above.try_emplace(*parent);
        if (added) at->second = read(*parent);
        parent = at->second.ppid;
      }
    }
  }
  std::map<std::uint32_t, HostProcess> tracked = out;
  tracked.insert(above.begin(), above.end());
  cpu_.retain(tracked);
  std::lock_guard lock(mutex_);
  latest_ = std::move(out);
  latest_ancestors_ = std::move(above);
}

}  // namespace gpuwatch::tui
