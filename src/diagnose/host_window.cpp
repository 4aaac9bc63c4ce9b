// record_host: one known host sample into a GPU's host window (gpu_state.hpp's HostChannel),
// weighted by how idle the GPU was over the sample (its gaps), while a process holds the GPU.
#include <algorithm>

#include "diagnose/gpu_state.hpp"
#include "diagnose/host_view.hpp"

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;

// The metric X into its four channels (gap weight, weighted sum, count, sum) from GAP_W on.
void add_metric(HostWindow::Values& v, std::size_t gap_w, const std::optional<double>& x, double w) {
  if (!x) return;
  v[gap_w] = w;
  v[gap_w + 1] = w * *x;
  v[gap_w + 2] = 1;
  v[gap_w + 3] = *x;
}

}  // namespace

std::optional<double> idle_weight(const GpuSample& s) {
  if (s.buffer_idle_share && s.buffer_idle_gaps && s.held()) return std::clamp(*s.buffer_idle_share, 0.0, 1.0);
  if (!s.util) return std::nullopt;
  return *s.util < kIdleUtil ? 1.0 : 0.0;
}

void record_host(GpuState& st, const HostView& host) {
  const GpuSample& s = st.sample;
  if (st.last_host_s != kNever && s.t_s - st.last_host_s > kHostStaleS) st.host_w.clear();
  const auto w = idle_weight(s);
  if (!host.known || !w || !s.held()) return;
  // The process trees of the GPU's compute processes (each counted once).
  std::optional<double> cores, saturation;
  double processes = 0;
  for (const auto& p : s.processes) {
    if (p.graphics_only) continue;
    const ProcessTreeView* tree = host.tree(p.pid);
    if (!tree || !tree->cpu_cores) continue;
    cores = cores.value_or(0) + *tree->cpu_cores;
    processes += static_cast<double>(tree->processes);
    if (auto sat = tree_saturation(*tree)) saturation = std::max(saturation.value_or(0), *sat);
  }
  HostWindow::Values v{};
  v[kHostN] = 1;
  v[kHostGapW] = *w;
  add_metric(v, kCpuBusyGapW, host.cpu_busy_ratio, *w);
  add_metric(v, kIowaitGapW, host.iowait_ratio, *w);
  add_metric(v, kCpuPsiGapW, host.cpu_pressure_ratio, *w);
  add_metric(v, kIoPsiGapW, host.io_pressure_ratio, *w);
  add_metric(v, kDiskBusyGapW, host.disk_busy_ratio, *w);
  add_metric(v, kTreeSatGapW, saturation, *w);
  add_metric(v, kTreeCoresGapW, cores, *w);
  if (cores) {
    v[kTreeProcsN] = 1;
    v[kTreeProcsSum] = processes;
  }
  st.host_w.push(s.t_s, v);
  st.last_host_s = s.t_s;
}

}  // namespace gpuwatch::diagnose
