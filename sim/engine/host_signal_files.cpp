// The simulated host's file texts (host_signal_files.hpp).
#include "sim/engine/host_signal_files.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace gpuwatch::sim::host_files {

namespace host_signal_files_detail {

std::uint64_t count_of(double x) { return x > 0 ? static_cast<std::uint64_t>(std::floor(x)) : 0; }

double integral(const HostMoment& m, HostValue v) { return m.totals.integral[host_value_index(v)]; }

double share(std::size_t parts) { return parts > 0 ? 1.0 / static_cast<double>(parts) : 0; }

std::size_t ib_ports(const HostSignals& signals) {
  std::size_t n = 0;
  for (const auto& d : signals.infiniband) n += d.ports;
  return n;
}

// "cpuN user nice system idle iowait irq softirq steal guest guest_nice"
std::string cpu_line(const std::string& name, std::uint64_t busy, std::uint64_t iowait, std::uint64_t steal,
                     std::uint64_t total) {
  const std::uint64_t system = busy / 5, user = busy - system;
  const std::uint64_t used = busy + iowait + steal;
  const std::uint64_t idle = total > used ? total - used : 0;
  return fmt::format("{} {} 0 {} {} {} 0 0 {} 0 0\n", name, user, system, idle, iowait, steal);
}

}  // namespace host_signal_files_detail

using namespace host_signal_files_detail;

std::string proc_stat(const HostSignals& signals, const HostMoment& m) {
  // Per core, ticks are the integral of each share (% x s = ticks at USER_HZ 100); every core the same.
  static_assert(kUserHz == 100, "share-seconds in % are ticks at USER_HZ 100");
  const std::uint64_t busy = count_of(integral(m, HostValue::CpuBusy));
  const std::uint64_t iowait = count_of(integral(m, HostValue::CpuIowait));
  const std::uint64_t steal = count_of(integral(m, HostValue::CpuSteal));
  const std::uint64_t total = count_of((m.totals.wall_s + kBootIdleS) * kUserHz);
  const std::uint64_t n = signals.cores;
  std::string out = cpu_line("cpu ", busy * n, iowait * n, steal * n, total * n);
  for (unsigned c = 0; c < signals.cores; ++c) out += cpu_line(fmt::format("cpu{}", c), busy, iowait, steal, total);
  const std::uint64_t boot = 1'700'000'000;
  out += fmt::format("intr 0\nctxt {}\nbtime {}\nprocesses {}\nprocs_running {}\nprocs_blocked 0\nsoftirq 0\n",
                     total * 40, boot, 1000 + total / 100, 1 + busy * n / std::max<std::uint64_t>(1, total));
  return out;
}

std::string pressure(const HostMoment& m, HostValue some, HostValue full, bool has_full) {
  auto line = [&](const char* kind, HostValue v, bool present) {
    const std::size_t i = host_value_index(v);
    if (!present)
      return fmt::format("{} avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", kind);
    // total: µs stalled (% x s x 10^4).
    return fmt::format("{} avg10={:.2f} avg60={:.2f} avg300={:.2f} total={}\n", kind, m.avg10[i], m.avg60[i], m.avg300[i],
                       count_of(m.totals.integral[i] * 1e4));
  };
  return line("some", some, true) + line("full", full, has_full);
}

std::string meminfo(const HostSignals& signals, const HostMoment& m) {
  const double total_kb = std::floor(signals.memory_bytes / 1024);
  const double available_kb = std::floor(total_kb * (1 - host_value(m.now, HostValue::MemoryUsed) / 100));
  const double swap_kb = std::floor(signals.swap_bytes / 1024);
  const double swap_free_kb = std::floor(swap_kb * (1 - host_value(m.now, HostValue::SwapUsed) / 100));
  return fmt::format(
      "MemTotal:       {:>10} kB\nMemFree:        {:>10} kB\nMemAvailable:   {:>10} kB\nBuffers:        {:>10} kB\n"
      "Cached:         {:>10} kB\nSwapCached:              0 kB\nSwapTotal:      {:>10} kB\nSwapFree:       {:>10} kB\n",
      total_kb, std::floor(available_kb * 0.4), available_kb, std::floor(available_kb * 0.05), std::floor(available_kb * 0.5),
      swap_kb, swap_free_kb);
}

std::string vmstat(const HostMoment& m) {
  return fmt::format("nr_free_pages 1000000\npgpgin {}\npgpgout {}\npswpin {}\npswpout {}\n",
                     count_of(integral(m, HostValue::DiskRead) / 1024), count_of(integral(m, HostValue::DiskWrite) / 1024),
                     count_of(integral(m, HostValue::SwapIn)), count_of(integral(m, HostValue::SwapOut)));
}

namespace host_signal_files_detail {

// The 17 numbers after the name (Documentation/admin-guide/iostats.rst): one disk's share.
std::string disk_fields(const HostSignals& signals, const HostMoment& m) {
  const double part = share(signals.disks.size());
  const std::uint64_t read_sectors = count_of(integral(m, HostValue::DiskRead) * part / kSectorBytes);
  const std::uint64_t write_sectors = count_of(integral(m, HostValue::DiskWrite) * part / kSectorBytes);
  const std::uint64_t reads = read_sectors * kSectorBytes / kDiskRequestBytes;
  const std::uint64_t writes = write_sectors * kSectorBytes / kDiskRequestBytes;
  const std::uint64_t io_ms = count_of(integral(m, HostValue::DiskBusy) * 10);  // % x s -> ms
  const unsigned in_flight = host_value(m.now, HostValue::DiskBusy) > 50 ? 4 : 0;
  return fmt::format("{} 0 {} {} {} 0 {} {} {} {} {} 0 0 0 0 0 0", reads, read_sectors, reads, writes, write_sectors, writes,
                     in_flight, io_ms, io_ms * 2);
}

}  // namespace host_signal_files_detail

std::string diskstats(const HostSignals& signals, const HostMoment& m) {
  std::string out;
  const std::string fields = disk_fields(signals, m);
  for (std::size_t d = 0; d < signals.disks.size(); ++d) {
    const bool scsi = signals.disks[d].rfind("sd", 0) == 0;
    out += fmt::format("{:>4} {:>7} {} {}\n", scsi ? 8 : 259, scsi ? d * 16 : d, signals.disks[d], fields);
  }
  return out;
}

std::string block_stat(const HostSignals& signals, const HostMoment& m) { return disk_fields(signals, m) + "\n"; }

std::string net_dev(const HostSignals& signals, const HostMoment& m) {
  std::string out =
      "Inter-|   Receive                                                |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n";
  auto line = [&](const std::string& name, std::uint64_t rx, std::uint64_t tx) {
    const auto packets = [](std::uint64_t bytes) { return static_cast<std::uint64_t>(static_cast<double>(bytes) / kNetPacketBytes); };
    out += fmt::format("{:>6}: {} {} 0 0 0 0 0 0 {} {} 0 0 0 0 0 0\n", name, rx, packets(rx), tx, packets(tx));
  };
  const std::uint64_t loopback = count_of((m.totals.wall_s + kBootIdleS) * 2000);  // a little local chatter
  line("lo", loopback, loopback);
  const double part = share(signals.interfaces.size());
  for (const auto& name : signals.interfaces)
    line(name, count_of(integral(m, HostValue::NetRx) * part), count_of(integral(m, HostValue::NetTx) * part));
  return out;
}

std::string ib_counter(const HostSignals& signals, const HostMoment& m, bool receive, bool packets) {
  const double bytes = integral(m, receive ? HostValue::IbRx : HostValue::IbTx) * share(ib_ports(signals));
  return fmt::format("{}\n", count_of(bytes / (packets ? kIbPacketBytes : kIbWordBytes)));
}

std::string process_stat(unsigned pid, const std::string& comm, unsigned ppid, double cpu_s, unsigned threads) {
  const std::uint64_t ticks = count_of(cpu_s * kUserHz);
  const std::uint64_t stime = ticks / 10, utime = ticks - stime;
  // Fields 1-52 of proc(5): pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
  // utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss, then zeros.
  std::string out = fmt::format("{} ({}) S {} {} {} 0 -1 4194560 1000 0 0 0 {} {} 0 0 20 0 {} 0 {} 4000000000 200000",
                                pid, comm, ppid, ppid == 1 ? pid : ppid, ppid == 1 ? pid : ppid, utime, stime, threads,
                                static_cast<std::uint64_t>(kBootIdleS * kUserHz));
  for (int field = 25; field <= 52; ++field) out += " 0";
  return out + "\n";
}

unsigned worker_pid(std::size_t process_index, unsigned slot) {
  return kWorkerPidBase + static_cast<unsigned>(process_index) * kWorkerSlotsPerProcess + slot;
}

}  // namespace gpuwatch::sim::host_files
