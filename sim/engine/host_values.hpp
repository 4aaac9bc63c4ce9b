#pragma once
// The values a scenario's simulated host (`host: signals:` phases) gives at each moment: one table
// (host_values.cpp) names them, their units and ranges, so the parser, `sim show` and the docs
// follow it. What the simulated /proc and /sys files make of them: host_signal_files.hpp.
#include <array>
#include <cstddef>
#include <string_view>

namespace gpuwatch::sim {

enum class HostValue : unsigned {
  CpuBusy,             // % of all CPUs' time busy (user + system)
  CpuIowait,           // % of all CPUs' time in iowait
  CpuSteal,            // % stolen by the hypervisor
  CpuPressureSome,     // PSI cpu some, % of wall time
  MemoryPressureSome,  // PSI memory some
  MemoryPressureFull,  // PSI memory full
  IoPressureSome,      // PSI io some
  IoPressureFull,      // PSI io full
  ProcessCpu,          // each GPU process's own CPU, in cores
  Workers,             // DataLoader worker processes under each GPU process
  WorkerCpu,           // each worker's CPU, in cores
  DiskRead,            // bytes/s read, over all disks
  DiskWrite,           // bytes/s written
  DiskBusy,            // % of wall time each disk has I/O in flight (io_ticks, iostat's %util)
  NetRx,               // bytes/s received, over all interfaces (lo aside)
  NetTx,               // bytes/s sent
  IbRx,                // InfiniBand bytes/s received, over all ports
  IbTx,                // InfiniBand bytes/s sent
  MemoryUsed,          // % of MemTotal not available (MemAvailable = the rest)
  SwapUsed,            // % of SwapTotal in use
  SwapIn,              // pages/s swapped in (pswpin)
  SwapOut,             // pages/s swapped out (pswpout)
};
inline constexpr std::size_t kHostValueCount = 22;

using HostValues = std::array<double, kHostValueCount>;

inline constexpr std::size_t host_value_index(HostValue v) { return static_cast<std::size_t>(v); }
inline double host_value(const HostValues& values, HostValue v) { return values[host_value_index(v)]; }

enum class HostUnit { Percent, Cores, Count, BytesPerSecond, PagesPerSecond };

struct HostValueInfo {
  HostValue value;
  const char* key;      // the YAML key of a host phase
  HostUnit unit;
  double min, max;      // inclusive
  double fallback;      // when a phase does not give it
  const char* meaning;  // one line, for the docs and `sim show`
};

// Every host value, in HostValue order.
const std::array<HostValueInfo, kHostValueCount>& host_value_table();
const HostValueInfo* find_host_value(std::string_view key);
const char* host_unit_name(HostUnit unit);  // "%", "cores", "", "B/s", "pages/s"
// The fallbacks of every value: what a phase starts from.
HostValues default_host_values();

}  // namespace gpuwatch::sim
