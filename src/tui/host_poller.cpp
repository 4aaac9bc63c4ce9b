#include "tui/host_poller.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string_view>
#include <system_error>
#include <vector>

#include "tui/process_tree.hpp"

namespace gpuwatch::tui {

namespace {

// Field N (1-based, as proc(5) numbers them; N >= 3) of a /proc/<pid>/stat line: the fields
// after the command, which is in parentheses and may hold spaces. No streams: this runs for
// every process every pass.
std::optional<std::string_view> stat_field(std::string_view stat_line, int n) {
  auto close = stat_line.rfind(')');
  if (close == std::string_view::npos || n < 3) return std::nullopt;
  std::string_view rest = stat_line.substr(close + 1);
  for (int field = 3;; ++field) {
    const auto begin = rest.find_first_not_of(" \n");
    if (begin == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(begin);
    const auto end = std::min(rest.find_first_of(" \n"), rest.size());
    if (field == n) return rest.substr(0, end);
    rest.remove_prefix(end);
  }
}

template <typename T>
std::optional<T> number(std::string_view text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [at, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || at != end || text.empty()) return std::nullopt;
  return value;
}

// The first whitespace-separated token of TEXT ("" when none).
std::string_view first_token(std::string_view text, std::size_t skip = 0) {
  for (std::size_t i = 0;; ++i) {
    const auto begin = text.find_first_not_of(" \n\t");
    if (begin == std::string_view::npos) return {};
    text.remove_prefix(begin);
    const auto end = std::min(text.find_first_of(" \n\t"), text.size());
    if (i == skip) return text.substr(0, end);
    text.remove_prefix(end);
  }
}

}  // namespace

std::optional<double> elapsed_seconds_of(const std::string& stat_line, const std::string& uptime_text,
                                         long ticks_per_second) {
  if (ticks_per_second <= 0) return std::nullopt;
  const auto field = stat_field(stat_line, 22);  // starttime, in clock ticks after boot
  if (!field) return std::nullopt;
  const auto start_ticks = number<unsigned long long>(*field);
  const auto uptime = number<double>(first_token(uptime_text));
  if (!start_ticks || !uptime) return std::nullopt;
  const double start = static_cast<double>(*start_ticks) / static_cast<double>(ticks_per_second);
  if (start > *uptime + 1) return std::nullopt;
  return std::max(*uptime - start, 0.0);
}

std::optional<std::uint32_t> parent_pid_of(const std::string& stat_line) {
  const auto field = stat_field(stat_line, 4);
  return field ? number<std::uint32_t>(*field) : std::nullopt;
}

std::string start_time_of(const std::string& stat_line) {
  const auto field = stat_field(stat_line, 22);  // field 3 (state) ... field 22 (starttime)
  return field ? std::string(*field) : std::string();
}

std::optional<std::uint64_t> rss_of_statm(const std::string& statm_text, long page_size) {
  if (page_size <= 0) return std::nullopt;
  if (!number<std::uint64_t>(first_token(statm_text))) return std::nullopt;  // size
  const auto resident = number<std::uint64_t>(first_token(statm_text, 1));
  if (!resident) return std::nullopt;
  return *resident * static_cast<std::uint64_t>(page_size);
}

namespace {

// The whole of a /proc file kept open, read again from its start: one pread(2), where opening it
// by path costs three calls. False when the process is gone (or the file cannot be read).
bool reread(int fd, std::string& text) {
  char buffer[4096];
  text.clear();
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
    if (n < 0) return false;
    if (n == 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    at += n;
    // A /proc file comes whole in one read that leaves room: no second call to see its end.
    if (static_cast<std::size_t>(n) < sizeof buffer || text.size() > 65536) break;
  }
  return !text.empty();
}

}  // namespace

HostPoller::OpenFile::~OpenFile() {
  if (fd >= 0) ::close(fd);
}

HostPoller::OpenFile::OpenFile(OpenFile&& other) noexcept : fd(other.fd) { other.fd = -1; }

HostPoller::OpenFile& HostPoller::OpenFile::operator=(OpenFile&& other) noexcept {
  if (this != &other) {
    if (fd >= 0) ::close(fd);
    fd = other.fd;
    other.fd = -1;
  }
  return *this;
}

std::optional<std::string> HostPoller::OpenFile::read(const std::string& path) {
  std::string text;
  if (fd >= 0 && reread(fd, text)) return text;
  // Not open yet, or open on a process that ended (its PID may be another process's now).
  if (fd >= 0) ::close(fd);
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || !reread(fd, text)) return std::nullopt;
  return text;
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

HostProcess HostPoller::read(std::uint32_t pid, const std::string& uptime) {
  static const long ticks = sysconf(_SC_CLK_TCK);
  static const long page_size = sysconf(_SC_PAGESIZE);
  const std::string dir = proc_root_ + "/" + std::to_string(pid);
  Files& files = files_[pid];
  auto stat = files.stat.read(dir + "/stat");
  if (!stat || stat->empty()) {  // gone
    known_.erase(pid);
    files_.erase(pid);
    return {};
  }
  while (!stat->empty() && stat->back() == '\n') stat->pop_back();
  const std::string start = start_time_of(*stat);
  HostProcess p;
  auto known = known_.find(pid);
  std::optional<std::string> statm;
  if (known != known_.end() && !start.empty() && known->second.start == start &&
      (statm = files.statm.read(dir + "/statm"))) {
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
  const std::string uptime = uptime_.read(proc_root_ + "/uptime").value_or("");
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
  for (auto it = files_.begin(); it != files_.end();) it = tracked.count(it->first) ? std::next(it) : files_.erase(it);
  std::lock_guard lock(mutex_);
  latest_ = std::move(out);
  latest_ancestors_ = std::move(above);
}

}  // namespace gpuwatch::tui
