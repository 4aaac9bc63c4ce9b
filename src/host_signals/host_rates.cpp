#include "host_signals/host_rates.hpp"

#include <algorithm>
#include <map>

namespace gpuwatch::host_signals {
namespace {

// (now - before) / seconds; absent when either is absent, the counter went back, or no time passed.
std::optional<double> counter_rate(std::optional<std::uint64_t> before, std::optional<std::uint64_t> now, double seconds) {
  if (!before || !now || *now < *before || seconds <= 0) return std::nullopt;
  return static_cast<double>(*now - *before) / seconds;
}

// A share of DELTA_TOTAL ticks, in percent (0..100).
std::optional<double> tick_share(std::optional<std::uint64_t> before, std::optional<std::uint64_t> now, std::uint64_t delta_total) {
  if (!before || !now || *now < *before || delta_total == 0) return std::nullopt;
  return std::min(100.0, 100.0 * static_cast<double>(*now - *before) / static_cast<double>(delta_total));
}

struct CpuShares {
  std::optional<double> busy, iowait, steal;
};

CpuShares cpu_shares(const CpuTimes& before, const CpuTimes& now) {
  CpuShares out;
  if (now.total() <= before.total()) return out;
  const std::uint64_t delta = now.total() - before.total();
  out.busy = tick_share(before.busy(), now.busy(), delta);
  out.iowait = tick_share(before.iowait, now.iowait, delta);
  out.steal = tick_share(before.steal, now.steal, delta);
  return out;
}

void add_to(std::optional<double>& sum, const std::optional<double>& value) {
  if (value) sum = sum.value_or(0) + *value;
}

void fill_instant_values(const HostReading& now, HostSample& out) {
  if (now.cpu_pressure && now.cpu_pressure->some) out.cpu_pressure_some_percent = now.cpu_pressure->some->avg10_percent;
  if (now.memory_pressure) {
    if (now.memory_pressure->some) out.memory_pressure_some_percent = now.memory_pressure->some->avg10_percent;
    if (now.memory_pressure->full) out.memory_pressure_full_percent = now.memory_pressure->full->avg10_percent;
  }
  if (now.io_pressure) {
    if (now.io_pressure->some) out.io_pressure_some_percent = now.io_pressure->some->avg10_percent;
    if (now.io_pressure->full) out.io_pressure_full_percent = now.io_pressure->full->avg10_percent;
  }
  if (now.memory) {
    const MemInfo& m = *now.memory;
    out.memory_total_bytes = m.total_bytes;
    out.memory_available_bytes = m.available_bytes;
    if (m.total_bytes && m.available_bytes && *m.total_bytes > 0)
      out.memory_available_percent = std::min(100.0, 100.0 * static_cast<double>(*m.available_bytes) / static_cast<double>(*m.total_bytes));
    out.swap_total_bytes = m.swap_total_bytes;
    if (m.swap_total_bytes && m.swap_free_bytes && *m.swap_free_bytes <= *m.swap_total_bytes)
      out.swap_used_bytes = *m.swap_total_bytes - *m.swap_free_bytes;
  }
}

void fill_cpu_rates(const HostReading& before, const HostReading& now, HostSample& out) {
  if (!before.cpu || !now.cpu) return;
  if (before.cpu->total && now.cpu->total) {
    const CpuShares shares = cpu_shares(*before.cpu->total, *now.cpu->total);
    out.cpu_busy_percent = shares.busy;
    out.cpu_iowait_percent = shares.iowait;
    out.cpu_steal_percent = shares.steal;
  }
  std::map<unsigned, const CpuTimes*> earlier;
  for (const auto& [cpu, times] : before.cpu->cores) earlier[cpu] = &times;
  for (const auto& [cpu, times] : now.cpu->cores) {
    auto found = earlier.find(cpu);
    out.cores.push_back({cpu, found == earlier.end() ? std::nullopt : cpu_shares(*found->second, times).busy});
  }
}

void fill_disk_rates(const HostReading& before, const HostReading& now, double seconds, HostSample& out) {
  if (!before.disks || !now.disks) return;
  for (const auto& disk : *now.disks) {
    auto found = std::find_if(before.disks->begin(), before.disks->end(), [&](const DiskCounters& d) { return d.name == disk.name; });
    DiskRates rates{disk.name, std::nullopt, std::nullopt, std::nullopt};
    if (found != before.disks->end()) {
      auto sectors_read = counter_rate(found->sectors_read, disk.sectors_read, seconds);
      auto sectors_written = counter_rate(found->sectors_written, disk.sectors_written, seconds);
      if (sectors_read) rates.read_bytes_per_s = *sectors_read * kDiskSectorBytes;
      if (sectors_written) rates.write_bytes_per_s = *sectors_written * kDiskSectorBytes;
      if (auto ms = counter_rate(found->io_ticks_ms, disk.io_ticks_ms, seconds)) rates.busy_percent = std::min(100.0, *ms / 10.0);
    }
    add_to(out.disk_read_bytes_per_s, rates.read_bytes_per_s);
    add_to(out.disk_write_bytes_per_s, rates.write_bytes_per_s);
    if (rates.busy_percent) out.disk_busy_percent = std::max(out.disk_busy_percent.value_or(0), *rates.busy_percent);
    out.disks.push_back(std::move(rates));
  }
}

void fill_net_rates(const HostReading& before, const HostReading& now, double seconds, HostSample& out) {
  if (!before.interfaces || !now.interfaces) return;
  for (const auto& nic : *now.interfaces) {
    auto found = std::find_if(before.interfaces->begin(), before.interfaces->end(),
                              [&](const InterfaceCounters& i) { return i.name == nic.name; });
    InterfaceRates rates{nic.name, std::nullopt, std::nullopt};
    if (found != before.interfaces->end()) {
      rates.rx_bytes_per_s = counter_rate(found->rx_bytes, nic.rx_bytes, seconds);
      rates.tx_bytes_per_s = counter_rate(found->tx_bytes, nic.tx_bytes, seconds);
    }
    add_to(out.net_rx_bytes_per_s, rates.rx_bytes_per_s);
    add_to(out.net_tx_bytes_per_s, rates.tx_bytes_per_s);
    out.interfaces.push_back(std::move(rates));
  }
}

void fill_ib_rates(const HostReading& before, const HostReading& now, double seconds, HostSample& out) {
  for (const auto& port : now.ib_ports) {
    auto found = std::find_if(before.ib_ports.begin(), before.ib_ports.end(), [&](const IbPortCounters& p) {
      return p.device == port.device && p.port == port.port;
    });
    IbPortRates rates{port.device, port.port, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    if (found != before.ib_ports.end()) {
      rates.rx_bytes_per_s = counter_rate(found->rx_bytes, port.rx_bytes, seconds);
      rates.tx_bytes_per_s = counter_rate(found->tx_bytes, port.tx_bytes, seconds);
      rates.rx_packets_per_s = counter_rate(found->rx_packets, port.rx_packets, seconds);
      rates.tx_packets_per_s = counter_rate(found->tx_packets, port.tx_packets, seconds);
    }
    add_to(out.ib_rx_bytes_per_s, rates.rx_bytes_per_s);
    add_to(out.ib_tx_bytes_per_s, rates.tx_bytes_per_s);
    out.ib_ports.push_back(std::move(rates));
  }
}

}  // namespace

HostSample host_sample_of(const std::optional<HostReading>& previous, const HostReading& now) {
  HostSample out;
  out.timestamp = now.taken;
  fill_instant_values(now, out);
  if (!previous || now.at <= previous->at) {
    if (now.cpu)  // the cores are known; their rates are not
      for (const auto& core : now.cpu->cores) out.cores.push_back({core.first, std::nullopt});
    return out;
  }
  const double seconds = std::chrono::duration<double>(now.at - previous->at).count();
  out.interval_s = seconds;
  if (seconds >= kMinCpuWindowS) {
    fill_cpu_rates(*previous, now, out);
  } else if (now.cpu) {  // too few 10 ms ticks to be a share: absent, as on the first reading
    for (const auto& core : now.cpu->cores) out.cores.push_back({core.first, std::nullopt});
  }
  fill_disk_rates(*previous, now, seconds, out);
  fill_net_rates(*previous, now, seconds, out);
  fill_ib_rates(*previous, now, seconds, out);
  if (previous->swap && now.swap) {
    out.swap_in_pages_per_s = counter_rate(previous->swap->pages_in, now.swap->pages_in, seconds);
    out.swap_out_pages_per_s = counter_rate(previous->swap->pages_out, now.swap->pages_out, seconds);
  }
  return out;
}

}  // namespace gpuwatch::host_signals
