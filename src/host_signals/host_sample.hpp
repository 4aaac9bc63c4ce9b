#pragma once
// What the host was doing, in display-ready rates: CPU, pressure, memory and swap, disks,
// network, InfiniBand. One per reading, stamped like a GPU snapshot (system clock) so the live
// collector can carry it next to the GPUs' samples. Absent stays absent: a value the kernel does
// not give (no PSI, no steal column), a first reading (no rates yet), a counter that went back.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuwatch::host_signals {

struct CoreBusy {
  unsigned cpu = 0;
  std::optional<double> busy_percent;
};

struct DiskRates {
  std::string name;
  std::optional<double> read_bytes_per_s, write_bytes_per_s, busy_percent;
};

struct InterfaceRates {
  std::string name;
  std::optional<double> rx_bytes_per_s, tx_bytes_per_s;
};

struct IbPortRates {
  std::string device, port;
  std::optional<double> rx_bytes_per_s, tx_bytes_per_s, rx_packets_per_s, tx_packets_per_s;
};

// The CPU of a GPU process and its live descendants (DataLoader workers), over the interval.
struct ProcessTreeRates {
  unsigned pid = 0;                 // the root: a process on a GPU
  std::optional<double> cpu_cores;  // CPU time per second, in cores (1.0: one core fully busy); absent: first reading
  std::size_t processes = 0;        // processes in the tree, the root included
};

struct HostSample {
  std::chrono::system_clock::time_point timestamp;
  std::optional<double> interval_s;  // between the two readings of the rates; absent: first reading

  // CPU (/proc/stat), share of all CPUs' time over the interval, 0..100.
  std::optional<double> cpu_busy_percent, cpu_iowait_percent, cpu_steal_percent;
  std::vector<CoreBusy> cores;
  // PSI's 10-second averages (/proc/pressure), 0..100: present from the first reading.
  std::optional<double> cpu_pressure_some_percent;
  std::optional<double> memory_pressure_some_percent, memory_pressure_full_percent;
  std::optional<double> io_pressure_some_percent, io_pressure_full_percent;
  // Memory (/proc/meminfo) and swap (/proc/vmstat).
  std::optional<double> memory_available_percent;
  std::optional<std::uint64_t> memory_total_bytes, memory_available_bytes;
  std::optional<std::uint64_t> swap_total_bytes, swap_used_bytes;
  std::optional<double> swap_in_pages_per_s, swap_out_pages_per_s;
  // Disks (/proc/diskstats): sums over the whole disks; busy: the busiest disk.
  std::optional<double> disk_read_bytes_per_s, disk_write_bytes_per_s, disk_busy_percent;
  std::vector<DiskRates> disks;
  // Network (/proc/net/dev), lo left out: sums over the interfaces.
  std::optional<double> net_rx_bytes_per_s, net_tx_bytes_per_s;
  std::vector<InterfaceRates> interfaces;
  // InfiniBand ports: sums over the ports; absent with no InfiniBand device.
  std::optional<double> ib_rx_bytes_per_s, ib_tx_bytes_per_s;
  std::vector<IbPortRates> ib_ports;
  // The trees of the roots the sampler was asked for (HostSampler::sample(at, roots)), by PID;
  // a root that was not alive is left out.
  std::vector<ProcessTreeRates> process_trees;
};

}  // namespace gpuwatch::host_signals
