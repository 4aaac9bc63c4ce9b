#include "host/process_info.hpp"

#include <pwd.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "host/command_line.hpp"

namespace gpuwatch::host {
namespace {

std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The name of UID, asked of NSS once per uid and process (each getpwuid_r reads /etc/passwd anew:
// a glance at 8 GPU processes of one user read it 8 times). A user renamed while gpuwatch runs
// keeps the old name until it restarts.
std::string user_name_of_uid(unsigned long uid) {
  static std::mutex mutex;
  static std::unordered_map<unsigned long, std::string> names;
  {
    std::lock_guard lock(mutex);
    if (auto it = names.find(uid); it != names.end()) return it->second;
  }
  passwd entry{};
  passwd* found = nullptr;
  std::vector<char> buffer(4096);
  std::string name = getpwuid_r(static_cast<uid_t>(uid), &entry, buffer.data(), buffer.size(), &found) == 0 && found
                         ? std::string(found->pw_name)
                         : std::to_string(uid);
  std::lock_guard lock(mutex);
  names.emplace(uid, name);
  return name;
}

std::optional<std::string> user_of(const std::string& status_text) {
  std::istringstream lines(status_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("Uid:", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    unsigned long uid = 0;
    if (!(fields >> uid)) return std::nullopt;
    return user_name_of_uid(uid);
  }
  return std::nullopt;
}

// "VmRSS:\t  123456 kB" -> bytes.
std::optional<std::uint64_t> rss_of(const std::string& status_text) {
  std::istringstream lines(status_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("VmRSS:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    std::uint64_t kib = 0;
    if (!(fields >> kib)) return std::nullopt;
    return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> cpu_seconds_of_stat(const std::string& stat_line, long ticks_per_second) {
  auto close = stat_line.rfind(')');
  if (close == std::string::npos || ticks_per_second <= 0) return std::nullopt;
  // After ") ": state (field 3), then fields 4..; utime is field 14, stime field 15. No streams:
  // `top` reads this for every process every 2 s.
  std::string_view rest = std::string_view(stat_line).substr(close + 1);
  unsigned long long utime = 0, stime = 0;
  for (int field = 3; field <= 15; ++field) {
    const auto begin = rest.find_first_not_of(" \n");
    if (begin == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(begin);
    const auto end = std::min(rest.find_first_of(" \n"), rest.size());
    if (field == 14 || field == 15) {
      unsigned long long value = 0;
      auto [at, error] = std::from_chars(rest.data(), rest.data() + end, value);
      if (error != std::errc() || at != rest.data() + end) return std::nullopt;
      (field == 14 ? utime : stime) = value;
    }
    rest.remove_prefix(end);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(ticks_per_second);
}

std::optional<double> run_seconds_of_stat(const std::string& stat_line, const std::string& uptime_text,
                                          long ticks_per_second) {
  auto close = stat_line.rfind(')');
  if (close == std::string::npos || ticks_per_second <= 0) return std::nullopt;
  std::istringstream fields(stat_line.substr(close + 1));
  std::string token;
  unsigned long long start_ticks = 0;
  for (int field = 3; field <= 22; ++field) {
    if (!(fields >> token)) return std::nullopt;
    if (field != 22) continue;
    try {
      start_ticks = std::stoull(token);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  std::istringstream uptime(uptime_text);
  double up = 0;
  if (!(uptime >> up) || up < 0) return std::nullopt;
  double run = up - static_cast<double>(start_ticks) / static_cast<double>(ticks_per_second);
  return run < 0 ? 0.0 : run;  // started within the last tick
}

void CpuTracker::update(unsigned pid, ProcessInfo& info, Clock::time_point now) {
  if (!info.cpu_seconds) return;
  auto found = last_.find(pid);
  if (found != last_.end() && now > found->second.at && *info.cpu_seconds >= found->second.cpu_seconds) {
    double elapsed = std::chrono::duration<double>(now - found->second.at).count();
    info.cpu_ratio = (*info.cpu_seconds - found->second.cpu_seconds) / elapsed;
  }
  last_[pid] = Reading{*info.cpu_seconds, now};
}

std::optional<std::string> ProcessInfo::command() const {
  if (command_line && !command_line->empty()) {
    std::string argv0 = command_line->substr(0, command_line->find(' '));
    auto slash = argv0.rfind('/');
    return slash == std::string::npos ? argv0 : argv0.substr(slash + 1);
  }
  return name;
}

ProcessInfo read_process_info(unsigned pid, const std::string& proc_root) {
  ProcessInfo info;
  const std::string dir = proc_root + "/" + std::to_string(pid) + "/";
  if (auto status = read_file(dir + "status")) {
    info.user = user_of(*status);
    info.rss_bytes = rss_of(*status);
  }
  if (auto stat = read_file(dir + "stat")) {
    info.cpu_seconds = cpu_seconds_of_stat(*stat, sysconf(_SC_CLK_TCK));
    if (auto uptime = read_file(proc_root + "/uptime")) info.run_seconds = run_seconds_of_stat(*stat, *uptime, sysconf(_SC_CLK_TCK));
  }
  if (auto cmdline = read_file(dir + "cmdline")) {
    std::string joined = join_cmdline(std::move(*cmdline));
    if (!joined.empty()) info.command_line = std::move(joined);
  }
  if (auto comm = read_file(dir + "comm")) {
    while (!comm->empty() && (comm->back() == '\n' || comm->back() == '\0')) comm->pop_back();
    if (!comm->empty()) info.name = std::move(*comm);
  }
  return info;
}

}  // namespace gpuwatch::host
