#pragma once
// The host families (issue 25): what the host was doing at the latest sample
// (core::Snapshot::host, sampled by the live collector's host thread), as gpuwatch_host_* gauges.
//
//   gpuwatch_host_<key>: one series per scalar of host_signals::host_fields() (the one table),
//     named by host_metric_of: base units, percentages as ratios 0-1, "_per_s" spelled "_per_second";
//   per disk, interface and InfiniBand port (labels device / interface / device,port):
//     gpuwatch_host_disk_device_{read,write}_bytes_per_second, gpuwatch_host_disk_device_busy_ratio,
//     gpuwatch_host_net_interface_{rx,tx}_bytes_per_second,
//     gpuwatch_host_ib_port_{rx,tx}_{bytes,packets}_per_second;
//   with per-process series on: gpuwatch_host_process_tree_cpu_cores{pid} and
//     gpuwatch_host_process_tree_processes{pid} (a GPU process and its descendants).
// An absent value (no PSI, a first reading without rates, no InfiniBand) gives no series, never
// 0; no host sample (serve --no-host) gives none at all.
#include <string>
#include <string_view>

#include "live/view.hpp"

namespace gpuwatch::exporter {

// The metric of one host_fields() key: "cpu_busy_percent" -> {"gpuwatch_host_cpu_busy_ratio", 0.01},
// "net_rx_bytes_per_s" -> {"gpuwatch_host_net_rx_bytes_per_second", 1}, "interval_s" ->
// {"gpuwatch_host_interval_seconds", 1}.
struct HostMetric {
  std::string name;
  double scale = 1;  // multiplies the field's value
};
HostMetric host_metric_of(std::string_view key);

void encode_host_native(const live::LiveView& view, bool per_process, std::string& out);

}  // namespace gpuwatch::exporter
