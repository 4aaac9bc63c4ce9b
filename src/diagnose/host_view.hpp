#pragma once
// The numbers the checks read from the host sample of a snapshot (issue 25), in base units
// (ratios 0..1, bytes and pages per second). Absent stays std::nullopt. Only a sample whose rates
// cover a known interval counts (`known`): a first reading has PSI but no rates, and is left out so
// that every host channel is summed over the same samples.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gpuwatch::host_signals {
struct HostSample;
}

namespace gpuwatch::diagnose {

// The CPU of a GPU process and its live descendants (its DataLoader workers).
struct ProcessTreeView {
  std::uint32_t pid = 0;
  std::optional<double> cpu_cores;  // 1.0 = one core fully busy, over the interval
  std::size_t processes = 0;        // the root included
};

struct HostView {
  bool known = false;  // a host sample with rates (its interval known)
  std::optional<double> cpu_busy_ratio, iowait_ratio;                      // of all CPUs' time
  std::optional<double> cpu_pressure_ratio, io_pressure_ratio;             // PSI some avg10
  std::optional<double> memory_pressure_some_ratio, memory_pressure_full_ratio;
  std::optional<double> disk_busy_ratio;                                   // the busiest disk
  std::optional<double> swap_pages_per_s;                                  // in + out
  std::optional<double> net_bytes_per_s, ib_bytes_per_s;                   // rx + tx, summed over links
  std::vector<ProcessTreeView> trees;

  const ProcessTreeView* tree(std::uint32_t pid) const;
};

// Reads SAMPLE (nullptr: the snapshot has none) into OUT, reusing OUT's storage.
void extract_host(const host_signals::HostSample* sample, HostView& out);

// How saturated a process tree is: its CPU per worker (cpu_cores / (processes - 1), or / 1 for a
// process that loads its data alone). 1.0: every worker busy all the time. Nullopt when unknown.
std::optional<double> tree_saturation(const ProcessTreeView& tree);

}  // namespace gpuwatch::diagnose
