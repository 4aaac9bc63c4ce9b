#pragma once
// Facts of a healthy node, for the doctor's tests to break one thing at a time.
#include <fmt/format.h>

#include "doctor/facts.hpp"

namespace gpuwatch::doctor::testing {

inline HostFacts healthy_host(unsigned gpus = 2) {
  HostFacts host;
  host.module_version = "550.90.07";
  host.module_listed = true;
  for (unsigned i = 0; i < gpus; ++i) host.device_nodes.push_back({fmt::format("nvidia{}", i), true});
  host.device_nodes.push_back({"nvidiactl", true});
  host.device_nodes.push_back({"nvidia-uvm", true});
  host.kernel_log_readable = true;
  host.kernel_log_source = "/dev/kmsg";
  return host;
}

inline NvmlFacts healthy_nvml(unsigned gpus = 2) {
  NvmlFacts nvml;
  nvml.loaded = true;
  nvml.library = "libnvidia-ml.so.1";
  nvml.init_time = std::chrono::milliseconds(12);
  nvml.driver_version = "550.90.07";
  nvml.device_count = gpus;
  for (unsigned i = 0; i < gpus; ++i) {
    GpuFacts g;
    g.index = i;
    g.name = "NVIDIA H100 80GB HBM3";
    g.uuid = fmt::format("GPU-0000000{}-aaaa-bbbb-cccc-000000000000", i);
    g.bus_id = fmt::format("00000000:{:02X}:00.0", 0x18 + i * 0x10);
    g.persistence = true;
    g.mig_current = g.mig_pending = false;
    g.ecc_current = g.ecc_pending = true;
    g.retired_pages_pending = false;
    g.remap_pending = g.remap_failure = false;
    g.pcie_gen = g.pcie_gen_max = 5u;
    g.pcie_width = g.pcie_width_max = 16u;
    g.power_limit_w = g.power_default_w = 700.0;
    g.app_clock_mhz = g.default_app_clock_mhz = 1620u;
    g.compute_mode = 0;
    g.fabric_state = 3u;
    g.fabric_status = 0;
    g.temperature_c = 60.0;
    g.utilization_ratio = 0.95;
    nvml.gpus.push_back(g);
  }
  return nvml;
}

}  // namespace gpuwatch::doctor::testing
