#include "tui/process_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tui/format.hpp"
#include "tui/process_tree.hpp"

namespace gpuwatch::tui {

const std::vector<ColumnSpec>& process_columns() {
  static const std::vector<ColumnSpec> columns = {
      {Column::Host, "HOST", "host", 15, false, false, 0},
      {Column::Pid, "PID", "pid", 7, true, false, 0},
      {Column::User, "USER", "user", 8, false, false, 0},
      {Column::Gpu, "GPU", "gpu", 4, true, false, 0},
      {Column::Type, "TYPE", "type", 5, false, false, 100},
      {Column::GpuPercent, "GPU%", "gpu_percent", 5, true, true, 0},
      {Column::GpuMemory, "GPU-MEM", "gpu_memory", 8, true, true, 0},
      {Column::CpuPercent, "CPU%", "cpu_percent", 6, true, true, 0},
      {Column::Rss, "HOST-MEM", "rss", 8, true, true, 0},
      {Column::Time, "TIME", "time", 6, true, true, 100},
      {Column::Owner, "OWNER", "owner", 20, false, false, 120},
      {Column::Command, "COMMAND", "command", 0, false, false, 0},
  };
  return columns;
}

const ColumnSpec& column_spec(Column column) {
  for (const auto& c : process_columns()) {
    if (c.column == column) return c;
  }
  return process_columns().back();
}

std::optional<Column> column_from_key(std::string_view key) {
  for (const auto& c : process_columns()) {
    if (c.key == key) return c.column;
  }
  return std::nullopt;
}

Column next_column(Column column, bool with_host, int step) {
  const auto& columns = process_columns();
  auto n = static_cast<int>(columns.size());
  int at = 0;
  for (int i = 0; i < n; ++i) {
    if (columns[static_cast<std::size_t>(i)].column == column) at = i;
  }
  for (int tries = 0; tries < n; ++tries) {
    at = ((at + step) % n + n) % n;
    if (columns[static_cast<std::size_t>(at)].column != Column::Host || with_host) break;
  }
  return columns[static_cast<std::size_t>(at)].column;
}

std::string process_cell(const ProcessView& p, Column column) {
  if (p.host_only) {
    switch (column) {
      case Column::Gpu: case Column::Type: case Column::GpuPercent: case Column::GpuMemory: return "";
      default: break;
    }
  }
  switch (column) {
    case Column::Host: return p.host.empty() ? "local" : p.host;
    case Column::Pid: return std::to_string(p.pid);
    case Column::User: return p.user.value_or(kNa);
    case Column::Gpu:
      return p.gpu_instance_id ? fmt::format("{}/{}", p.gpu, *p.gpu_instance_id) : std::to_string(p.gpu);
    case Column::Type: return core::to_string(p.type);
    case Column::GpuPercent: return format_percent(p.gpu_ratio);
    case Column::GpuMemory: return format_bytes(p.gpu_memory_bytes);
    case Column::CpuPercent: return p.cpu_ratio ? fmt::format("{:.1f}", *p.cpu_ratio * 100) : std::string(kNa);
    case Column::Rss: return format_bytes(p.rss_bytes);
    case Column::Time: return format_duration(p.elapsed_seconds);
    case Column::Owner: return p.owner.value_or("-");
    case Column::Command: return tree_prefix(p.depth) + (p.command.empty() ? std::string(kNa) : p.command);
  }
  return "";
}

namespace {

// -1: a before b, 1: after, 0: equal. Absent values compare as "after" (set by caller).
template <typename T>
int compare_optional(const std::optional<T>& a, const std::optional<T>& b, bool descending, bool& absent_order) {
  absent_order = false;
  if (!a && !b) return 0;
  if (!a || !b) {
    absent_order = true;
    return a ? -1 : 1;  // present first
  }
  if (*a == *b) return 0;
  bool less = *a < *b;
  return (less != descending) ? -1 : 1;
}

int compare(const ProcessView& a, const ProcessView& b, Column column, bool descending) {
  bool absent = false;
  auto plain = [&](const auto& x, const auto& y) {
    if (x == y) return 0;
    return ((x < y) != descending) ? -1 : 1;
  };
  switch (column) {
    case Column::Host: return plain(a.host, b.host);
    case Column::Pid: return plain(a.pid, b.pid);
    case Column::User: return compare_optional(a.user, b.user, descending, absent);
    case Column::Gpu: return plain(a.gpu, b.gpu);
    case Column::Type: return plain(static_cast<int>(a.type), static_cast<int>(b.type));
    case Column::GpuPercent: return compare_optional(a.gpu_ratio, b.gpu_ratio, descending, absent);
    case Column::GpuMemory: return compare_optional(a.gpu_memory_bytes, b.gpu_memory_bytes, descending, absent);
    case Column::CpuPercent: return compare_optional(a.cpu_ratio, b.cpu_ratio, descending, absent);
    case Column::Rss: return compare_optional(a.rss_bytes, b.rss_bytes, descending, absent);
    case Column::Time: return compare_optional(a.elapsed_seconds, b.elapsed_seconds, descending, absent);
    case Column::Owner: return compare_optional(a.owner, b.owner, descending, absent);
    case Column::Command: return plain(a.command, b.command);
  }
  return 0;
}

}  // namespace

void sort_processes(std::vector<ProcessView>& processes, Column column, bool descending) {
  std::stable_sort(processes.begin(), processes.end(), [&](const ProcessView& a, const ProcessView& b) {
    int c = compare(a, b, column, descending);
    if (c != 0) return c < 0;
    if (a.host != b.host) return a.host < b.host;
    if (a.pid != b.pid) return a.pid < b.pid;
    return a.gpu < b.gpu;
  });
}

std::optional<std::string> ProcessFilter::set(const std::string& pattern) {
  if (pattern.empty()) {
    pattern_.clear();
    regex_ = std::regex();
    return std::nullopt;
  }
  try {
    std::regex compiled(pattern, std::regex::ECMAScript | std::regex::icase);
    regex_ = std::move(compiled);
    pattern_ = pattern;
  } catch (const std::regex_error& e) {
    return fmt::format("invalid regex '{}': {}", pattern, e.what());
  }
  return std::nullopt;
}

bool ProcessFilter::matches(const ProcessView& p) const {
  if (pattern_.empty()) return true;
  std::string text = fmt::format("{} {} {}", p.pid, p.user.value_or(""), p.command);
  if (!p.host.empty()) text += " " + p.host;
  if (p.owner) text += " " + *p.owner;
  return std::regex_search(text, regex_);
}

std::vector<ProcessView> visible_processes(const std::vector<ProcessView>& processes, const std::optional<GpuKey>& gpu,
                                           const ProcessFilter& filter, Column sort, bool descending) {
  std::vector<ProcessView> out;
  for (const auto& p : processes) {
    if (gpu && (p.gpu != gpu->index || p.host != gpu->host)) continue;
    if (!filter.matches(p)) continue;
    out.push_back(p);
  }
  sort_processes(out, sort, descending);
  return out;
}

}  // namespace gpuwatch::tui
