#include "diagnose/host_view.hpp"

#include <algorithm>
#include <cmath>

#include "host_signals/host_sample.hpp"

namespace gpuwatch::diagnose {
namespace {

std::optional<double> percent_ratio(const std::optional<double>& percent) {
  if (!percent || !std::isfinite(*percent)) return std::nullopt;
  return std::clamp(*percent / 100.0, 0.0, 1.0);
}

// The sum of the present values; nullopt when none is.
std::optional<double> rate_sum(const std::optional<double>& a, const std::optional<double>& b) {
  std::optional<double> out;
  if (a && std::isfinite(*a)) out = *a;
  if (b && std::isfinite(*b)) out = out.value_or(0) + *b;
  return out;
}

}  // namespace

const ProcessTreeView* HostView::tree(std::uint32_t pid) const {
  for (const auto& t : trees)
    if (t.pid == pid) return &t;
  return nullptr;
}

std::optional<double> tree_saturation(const ProcessTreeView& tree) {
  if (!tree.cpu_cores || tree.processes == 0) return std::nullopt;
  const double workers = tree.processes > 1 ? static_cast<double>(tree.processes - 1) : 1.0;
  return std::max(0.0, *tree.cpu_cores) / workers;
}

void extract_host(const host_signals::HostSample* sample, HostView& out) {
  out.trees.clear();
  out.known = sample != nullptr && sample->interval_s && *sample->interval_s > 0;
  if (!out.known) {
    out = HostView{};
    return;
  }
  const auto& s = *sample;
  out.cpu_busy_ratio = percent_ratio(s.cpu_busy_percent);
  out.iowait_ratio = percent_ratio(s.cpu_iowait_percent);
  out.cpu_pressure_ratio = percent_ratio(s.cpu_pressure_some_percent);
  out.io_pressure_ratio = percent_ratio(s.io_pressure_some_percent);
  out.memory_pressure_some_ratio = percent_ratio(s.memory_pressure_some_percent);
  out.memory_pressure_full_ratio = percent_ratio(s.memory_pressure_full_percent);
  out.disk_busy_ratio = percent_ratio(s.disk_busy_percent);
  out.swap_pages_per_s = rate_sum(s.swap_in_pages_per_s, s.swap_out_pages_per_s);
  out.net_bytes_per_s = rate_sum(s.net_rx_bytes_per_s, s.net_tx_bytes_per_s);
  out.ib_bytes_per_s = rate_sum(s.ib_rx_bytes_per_s, s.ib_tx_bytes_per_s);
  for (const auto& t : s.process_trees) {
    ProcessTreeView v;
    v.pid = static_cast<std::uint32_t>(t.pid);
    if (t.cpu_cores && std::isfinite(*t.cpu_cores)) v.cpu_cores = *t.cpu_cores;
    v.processes = t.processes;
    out.trees.push_back(v);
  }
}

}  // namespace gpuwatch::diagnose
