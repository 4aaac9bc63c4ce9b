#include "tui/process_tree.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <utility>

namespace gpuwatch::tui {
namespace {

// A node is one PID of one host: its GPU rows (none for a host process) and its children.
struct Node {
  std::vector<std::size_t> rows;      // indexes into VISIBLE
  std::vector<std::uint32_t> children;
  std::size_t first = SIZE_MAX;       // the first VISIBLE row at or below this node (ordering)
  bool has_parent = false;
};

ProcessView host_row(std::uint32_t pid, const HostProcess& h) {
  ProcessView v;
  v.pid = pid;
  v.host_only = true;
  v.user = h.info.user;
  v.cpu_ratio = h.info.cpu_ratio;
  if (h.info.rss_bytes) v.rss_bytes = static_cast<double>(*h.info.rss_bytes);
  v.elapsed_seconds = h.elapsed_seconds;
  v.ppid = h.ppid;
  if (h.info.command_line && !h.info.command_line->empty()) v.command = *h.info.command_line;
  else if (h.info.name) v.command = *h.info.name;
  return v;
}

}  // namespace

std::vector<ProcessView> process_tree(const std::vector<ProcessView>& visible,
                                      const std::map<std::uint32_t, HostProcess>& ancestors) {
  std::map<std::uint32_t, Node> nodes;  // local processes
  std::vector<ProcessView> out;
  // GPU rows first: one node per PID (a process on two GPUs has two rows in one node).
  for (std::size_t i = 0; i < visible.size(); ++i) {
    if (!visible[i].host.empty()) continue;
    Node& n = nodes[visible[i].pid];
    n.rows.push_back(i);
    n.first = std::min(n.first, i);
  }
  // Links: each GPU process to its parent, up through at most kMaxTreeAncestors host processes.
  const auto parent_of = [&](std::uint32_t pid) -> std::optional<std::uint32_t> {
    if (auto n = nodes.find(pid); n != nodes.end() && !n->second.rows.empty()) return visible[n->second.rows.front()].ppid;
    if (auto a = ancestors.find(pid); a != ancestors.end()) return a->second.ppid;
    return std::nullopt;
  };
  std::set<std::uint32_t> gpu_pids;
  for (const auto& [pid, n] : nodes) gpu_pids.insert(pid);
  for (std::uint32_t start : gpu_pids) {
    std::uint32_t child = start;
    int host_levels = 0;
    std::set<std::uint32_t> seen{start};
    while (true) {
      auto parent = parent_of(child);
      if (!parent || *parent <= 1 || seen.count(*parent)) break;
      const bool parent_is_gpu = gpu_pids.count(*parent) > 0;
      if (!parent_is_gpu) {
        if (host_levels == kMaxTreeAncestors || !ancestors.count(*parent)) break;
        ++host_levels;
      }
      Node& c = nodes[child];
      if (c.has_parent) break;  // already linked through another GPU process
      c.has_parent = true;
      Node& p = nodes[*parent];
      p.children.push_back(child);
      seen.insert(*parent);
      child = *parent;
    }
  }
  // Order: each node by the first GPU row beneath it.
  std::function<std::size_t(std::uint32_t)> first_of = [&](std::uint32_t pid) {
    Node& n = nodes[pid];
    for (auto c : n.children) n.first = std::min(n.first, first_of(c));
    return n.first;
  };
  std::vector<std::uint32_t> roots;
  for (auto& [pid, n] : nodes) {
    if (!n.has_parent) roots.push_back(pid);
  }
  for (auto pid : roots) first_of(pid);
  const auto by_first = [&](std::uint32_t a, std::uint32_t b) { return nodes[a].first < nodes[b].first; };
  std::sort(roots.begin(), roots.end(), by_first);
  std::set<std::uint32_t> emitted;
  std::function<void(std::uint32_t, int)> emit = [&](std::uint32_t pid, int depth) {
    if (!emitted.insert(pid).second) return;
    Node& n = nodes[pid];
    if (n.rows.empty()) {
      auto a = ancestors.find(pid);
      if (a == ancestors.end()) return;
      out.push_back(host_row(pid, a->second));
      out.back().depth = depth;
    }
    for (auto i : n.rows) {
      out.push_back(visible[i]);
      out.back().depth = depth;
    }
    std::sort(n.children.begin(), n.children.end(), by_first);
    for (auto c : n.children) emit(c, depth + 1);
  };
  // Remote rows keep their place relative to the local tree: local trees first, in order, then
  // the remote rows in VISIBLE's order (they have no parents to show).
  for (auto pid : roots) emit(pid, 0);
  // Parents that contradict each other (a reused PID) can make a loop with no root: such rows
  // still show, flat.
  for (std::uint32_t pid : gpu_pids) {
    if (!emitted.count(pid)) emit(pid, 0);
  }
  for (const auto& v : visible) {
    if (!v.host.empty()) out.push_back(v);
  }
  return out;
}

std::string tree_prefix(int depth) {
  if (depth <= 0) return "";
  std::string s;
  for (int i = 1; i < depth; ++i) s += "  ";
  return s + "└─ ";
}

}  // namespace gpuwatch::tui
