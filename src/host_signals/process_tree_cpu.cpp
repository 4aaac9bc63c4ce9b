#include "host_signals/process_tree_cpu.hpp"

#include <fmt/format.h>

#include <map>
#include <vector>

#include "host_signals/words.hpp"

namespace gpuwatch::host_signals {

std::optional<ProcessStat> parse_process_stat(std::string_view text) {
  const auto close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  const auto w = words_of(first_line(text.substr(close + 1)));
  // after ')': state(3) ppid(4) ... utime(14) stime(15): indices 0, 1, 11, 12
  if (w.size() < 13) return std::nullopt;
  auto ppid = unsigned_of(w[1]), utime = unsigned_of(w[11]), stime = unsigned_of(w[12]);
  if (!ppid || !utime || !stime) return std::nullopt;
  return ProcessStat{static_cast<unsigned>(*ppid), *utime + *stime};
}

namespace {

std::optional<ProcessStat> stat_of_pid(const HostFiles& files, unsigned pid) {
  auto text = files.read(fmt::format("/proc/{}/stat", pid), 4096);
  return text ? parse_process_stat(*text) : std::nullopt;
}

// Children of PID from its threads' children files; nullopt when the kernel has none.
std::optional<std::vector<unsigned>> listed_children(const HostFiles& files, unsigned pid) {
  auto tasks = files.list(fmt::format("/proc/{}/task", pid));
  if (!tasks) return std::nullopt;
  std::vector<unsigned> children;
  bool any_file = false;
  for (const auto& tid : *tasks) {
    auto text = files.read(fmt::format("/proc/{}/task/{}/children", pid, tid), 1 << 16);
    if (!text) continue;
    any_file = true;
    for (auto word : words_of(*text))
      if (auto child = unsigned_of(word)) children.push_back(static_cast<unsigned>(*child));
  }
  if (!any_file) return std::nullopt;
  return children;
}

// Every process's parent, from a scan of /proc.
std::multimap<unsigned, unsigned> children_by_scan(const HostFiles& files) {
  std::multimap<unsigned, unsigned> children;
  auto names = files.list("/proc");
  if (!names) return children;
  for (const auto& name : *names) {
    auto pid = unsigned_of(name);
    if (!pid) continue;
    if (auto stat = stat_of_pid(files, static_cast<unsigned>(*pid))) children.emplace(stat->ppid, static_cast<unsigned>(*pid));
  }
  return children;
}

}  // namespace

std::optional<TreeCpu> process_tree_cpu(const HostFiles& files, const std::set<unsigned>& roots) {
  TreeCpu out;
  std::set<unsigned> seen;
  std::vector<unsigned> pending(roots.begin(), roots.end());
  std::optional<std::multimap<unsigned, unsigned>> scanned;  // made once, on the first need
  bool any_root = false;
  while (!pending.empty()) {
    const unsigned pid = pending.back();
    pending.pop_back();
    if (!seen.insert(pid).second) continue;
    auto stat = stat_of_pid(files, pid);
    if (!stat) continue;  // ended meanwhile
    if (roots.count(pid)) any_root = true;
    out.cpu_ticks += stat->cpu_ticks;
    ++out.processes;
    if (auto children = listed_children(files, pid)) {
      pending.insert(pending.end(), children->begin(), children->end());
      continue;
    }
    if (!scanned) scanned = children_by_scan(files);
    for (auto [it, end] = scanned->equal_range(pid); it != end; ++it) pending.push_back(it->second);
  }
  if (!any_root) return std::nullopt;
  return out;
}

}  // namespace gpuwatch::host_signals
