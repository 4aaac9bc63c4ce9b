// What one refresh of `gpuwatch top` costs on the UI thread besides copying the collector's
// samples: sorting and filtering the process list and building the frame (all of the screen's
// text and colours). Curses then only sends the changed cells. See docs/performance.md.
#include <benchmark/benchmark.h>

#include "tui/frame.hpp"
#include "tui/process_table.hpp"

namespace {

using namespace gpuwatch::tui;

Model node(unsigned gpus) {
  Model m;
  m.driver_version = "550.90.07";
  gpuwatch::host_signals::HostSample host;  // the host line under the title (issue 25)
  host.interval_s = 1;
  host.cpu_busy_percent = 93.6;
  host.cpu_iowait_percent = 4.2;
  host.memory_available_percent = 41;
  host.swap_in_pages_per_s = 0;
  host.disk_read_bytes_per_s = 812e6;
  host.disk_write_bytes_per_s = 3e6;
  host.disk_busy_percent = 97;
  host.net_rx_bytes_per_s = 1.2e6;
  host.net_tx_bytes_per_s = 3e5;
  m.host_line = make_host_line_view(host);
  for (unsigned i = 0; i < gpus; ++i) {
    GpuView g;
    g.index = i;
    g.name = "H100 80GB HBM3";
    g.health = GpuHealth::Up;
    g.utilization_ratio = 0.9 + 0.001 * i;
    g.memory_used_bytes = 62e9;
    g.memory_total_bytes = 85e9;
    g.power_w = 588;
    g.power_limit_w = 700;
    g.temperature_c = 65;
    g.slowdown_c = 87;
    g.sm_clock_hz = 1965e6;
    g.sm_max_hz = 1980e6;
    g.memory_clock_hz = 2619e6;
    g.pcie_rx_bytes_per_s = 42e6;
    g.pcie_tx_bytes_per_s = 11e6;
    if (i % 8 == 3) g.throttle = "thermal";
    if (i % 8 == 6) g.finding = "critical memory leak: PID 14735 +15790 MiB/min, OOM in ~57 s";
    m.gpus.push_back(g);
    for (unsigned p = 0; p < 2; ++p) {
      ProcessView v;
      v.pid = 10000 + i * 2 + p;
      v.gpu = i;
      v.user = "alice";
      v.gpu_ratio = 0.5;
      v.gpu_memory_bytes = 3e10 + p;
      v.cpu_ratio = 0.8;
      v.rss_bytes = 4e9;
      v.elapsed_seconds = 3600;
      v.command = "python train.py --config configs/llama-7b.yaml --nproc-per-node 8";
      m.processes.push_back(v);
    }
  }
  return m;
}

void BM_TopFrame(benchmark::State& state) {
  const auto gpus = static_cast<unsigned>(state.range(0));
  const int width = static_cast<int>(state.range(1));
  const int height = static_cast<int>(state.range(2));
  Model model = node(gpus);
  History history(600);
  for (int i = 0; i < 600; ++i) history.push(model);
  UiState ui;
  for (auto _ : state) {
    auto visible = visible_processes(model.processes, ui.selected_gpu, ui.filter, ui.sort, ui.descending);
    FrameInput in;
    in.model = &model;
    in.state = &ui;
    in.history = &history;
    in.visible = &visible;
    in.title = "gpuwatch top  vm  08:05:54  driver 550.90.07";
    Frame frame = build_frame(in, width, height);
    benchmark::DoNotOptimize(frame);
  }
}
BENCHMARK(BM_TopFrame)->Args({8, 80, 24})->Args({8, 200, 60})->Args({64, 80, 24})->Args({64, 200, 60})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
