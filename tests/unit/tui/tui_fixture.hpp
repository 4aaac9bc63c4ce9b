#pragma once
// Models for the tui tests: a demo-like node of N H100s, GPU 3 thermally throttled and GPU 6
// with a memory-leak finding, a process per GPU.
#include <fmt/format.h>

#include "tui/model.hpp"

namespace gpuwatch::tui::test {

inline GpuView h100(unsigned index) {
  GpuView g;
  g.index = index;
  g.name = "H100 80GB HBM3";
  g.health = GpuHealth::Up;
  g.utilization_ratio = 0.99;
  g.memory_used_bytes = 62315.0 * 1024 * 1024;
  g.memory_total_bytes = 81559.0 * 1024 * 1024;
  g.power_w = 588;
  g.power_limit_w = 700;
  g.temperature_c = 65;
  g.slowdown_c = 87;
  g.sm_clock_hz = 1965e6;
  g.sm_max_hz = 1980e6;
  g.memory_clock_hz = 2619e6;
  g.pcie_rx_bytes_per_s = 42e6;
  g.pcie_tx_bytes_per_s = 11e6;
  return g;
}

inline Model demo_model(unsigned gpus) {
  Model m;
  m.driver_version = "550.90.07";
  for (unsigned i = 0; i < gpus; ++i) {
    GpuView g = h100(i);
    if (i == 3) {
      g.throttle = "thermal";
      g.throttle_severity = terminal::Severity::Critical;
      g.temperature_c = 90;
      g.sm_clock_hz = 1125e6;
    }
    if (i == 6) {
      g.finding = "critical memory leak: PID 14735 +15790 MiB/min, OOM in ~57 s";
      g.finding_severity = diagnose::Severity::Critical;
    }
    m.gpus.push_back(g);
    ProcessView p;
    p.pid = 14729 + i;
    p.gpu = i;
    p.user = i == 6 ? "bob" : "alice";
    p.gpu_ratio = i == 6 ? 0.97 : 1.0;
    p.gpu_memory_bytes = (i == 6 ? 67734.0 : 62314.0 - i) * 1024 * 1024;
    p.cpu_ratio = 0.1 * i;
    p.rss_bytes = (1000.0 + i) * 1024 * 1024;
    p.elapsed_seconds = 100.0 + i;
    p.command = i == 6 ? "python eval_server.py --port 8500" : "python train.py --config configs/llama-7b.yaml";
    m.processes.push_back(p);
  }
  return m;
}

}  // namespace gpuwatch::tui::test
