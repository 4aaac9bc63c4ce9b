#pragma once
// One reading of the host's counters, as the kernel gives them (since boot): what HostSampler
// reads, and what two of make a HostSample's rates (host_rates.hpp).
#include <chrono>
#include <optional>
#include <vector>

#include "host_signals/diskstats.hpp"
#include "host_signals/infiniband.hpp"
#include "host_signals/memory.hpp"
#include "host_signals/net_dev.hpp"
#include "host_signals/pressure.hpp"
#include "host_signals/proc_stat.hpp"

namespace gpuwatch::host_signals {

struct HostReading {
  std::chrono::steady_clock::time_point at;     // for the interval between two readings
  std::chrono::system_clock::time_point taken;  // for the sample's timestamp
  std::optional<ProcStat> cpu;                  // absent: /proc/stat unreadable
  std::optional<Pressure> cpu_pressure, memory_pressure, io_pressure;  // absent: no PSI
  std::optional<MemInfo> memory;
  std::optional<SwapCounters> swap;
  std::optional<std::vector<DiskCounters>> disks;          // counted disks only (counted_disk)
  std::optional<std::vector<InterfaceCounters>> interfaces;  // lo left out
  std::vector<IbPortCounters> ib_ports;                     // empty: no InfiniBand device
};

}  // namespace gpuwatch::host_signals
