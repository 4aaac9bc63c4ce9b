#include "tui/host_poller.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

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

void HostPoller::poll_once() {
  std::set<std::uint32_t> pids;
  {
    std::lock_guard lock(mutex_);
    pids = wanted_;
    new_pids_ = false;
  }
  std::string uptime;
  {
    std::ifstream in(proc_root_ + "/uptime");
    std::getline(in, uptime);
  }
  const long ticks = sysconf(_SC_CLK_TCK);
  std::map<std::uint32_t, HostProcess> out;
  for (auto pid : pids) {
    HostProcess p;
    p.info = host::read_process_info(pid, proc_root_);
    cpu_.update(pid, p.info);
    std::ifstream stat(proc_root_ + "/" + std::to_string(pid) + "/stat");
    std::string line;
    if (std::getline(stat, line)) p.elapsed_seconds = elapsed_seconds_of(line, uptime, ticks);
    out[pid] = std::move(p);
  }
  cpu_.retain(out);
  std::lock_guard lock(mutex_);
  latest_ = std::move(out);
}

}  // namespace gpuwatch::tui
