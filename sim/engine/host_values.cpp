// The simulated host's values: one table (host_values.hpp).
#include "sim/engine/host_values.hpp"

namespace gpuwatch::sim {

namespace host_values_table {

constexpr double kMaxRate = 1e13;  // bytes/s: 10 TB/s, past any disk array or set of ports
constexpr double kMaxPages = 1e9;  // pages/s

}  // namespace host_values_table

const std::array<HostValueInfo, kHostValueCount>& host_value_table() {
  using host_values_table::kMaxPages;
  using host_values_table::kMaxRate;
  static const std::array<HostValueInfo, kHostValueCount> kTable{{
      {HostValue::CpuBusy, "cpu_busy", HostUnit::Percent, 0, 100, 5, "share of all CPUs' time busy (user + system)"},
      {HostValue::CpuIowait, "cpu_iowait", HostUnit::Percent, 0, 100, 0, "share of all CPUs' time idle waiting on I/O"},
      {HostValue::CpuSteal, "cpu_steal", HostUnit::Percent, 0, 100, 0, "share of all CPUs' time stolen by the hypervisor"},
      {HostValue::CpuPressureSome, "cpu_pressure", HostUnit::Percent, 0, 100, 0, "PSI cpu some: wall time some task waited for a CPU"},
      {HostValue::MemoryPressureSome, "memory_pressure", HostUnit::Percent, 0, 100, 0, "PSI memory some"},
      {HostValue::MemoryPressureFull, "memory_pressure_full", HostUnit::Percent, 0, 100, 0, "PSI memory full"},
      {HostValue::IoPressureSome, "io_pressure", HostUnit::Percent, 0, 100, 0, "PSI io some"},
      {HostValue::IoPressureFull, "io_pressure_full", HostUnit::Percent, 0, 100, 0, "PSI io full"},
      {HostValue::ProcessCpu, "process_cpu", HostUnit::Cores, 0, 1024, 1, "CPU of each GPU process itself"},
      {HostValue::Workers, "workers", HostUnit::Count, 0, 64, 0, "DataLoader worker processes under each GPU process"},
      {HostValue::WorkerCpu, "worker_cpu", HostUnit::Cores, 0, 64, 0, "CPU of each worker"},
      {HostValue::DiskRead, "disk_read", HostUnit::BytesPerSecond, 0, kMaxRate, 0, "read, over all disks"},
      {HostValue::DiskWrite, "disk_write", HostUnit::BytesPerSecond, 0, kMaxRate, 0, "written, over all disks"},
      {HostValue::DiskBusy, "disk_busy", HostUnit::Percent, 0, 100, 0, "wall time each disk has I/O in flight (%util)"},
      {HostValue::NetRx, "net_rx", HostUnit::BytesPerSecond, 0, kMaxRate, 0, "received, over all interfaces"},
      {HostValue::NetTx, "net_tx", HostUnit::BytesPerSecond, 0, kMaxRate, 0, "sent, over all interfaces"},
      {HostValue::IbRx, "ib_rx", HostUnit::BytesPerSecond, 0, kMaxRate, 0, "InfiniBand data received, over all ports"},
      {HostValue::IbTx, "ib_tx", HostUnit::BytesPerSecond, 0, kMaxRate, 0, "InfiniBand data sent, over all ports"},
      {HostValue::MemoryUsed, "memory_used", HostUnit::Percent, 0, 100, 20, "memory not available (MemAvailable is the rest)"},
      {HostValue::SwapUsed, "swap_used", HostUnit::Percent, 0, 100, 0, "swap space in use"},
      {HostValue::SwapIn, "swap_in", HostUnit::PagesPerSecond, 0, kMaxPages, 0, "pages swapped in (pswpin)"},
      {HostValue::SwapOut, "swap_out", HostUnit::PagesPerSecond, 0, kMaxPages, 0, "pages swapped out (pswpout)"},
  }};
  return kTable;
}

const HostValueInfo* find_host_value(std::string_view key) {
  for (const auto& info : host_value_table())
    if (key == info.key) return &info;
  return nullptr;
}

const char* host_unit_name(HostUnit unit) {
  switch (unit) {
    case HostUnit::Percent: return "%";
    case HostUnit::Cores: return "cores";
    case HostUnit::Count: return "";
    case HostUnit::BytesPerSecond: return "B/s";
    case HostUnit::PagesPerSecond: return "pages/s";
  }
  return "";
}

HostValues default_host_values() {
  HostValues out{};
  for (const auto& info : host_value_table()) out[host_value_index(info.value)] = info.fallback;
  return out;
}

}  // namespace gpuwatch::sim
