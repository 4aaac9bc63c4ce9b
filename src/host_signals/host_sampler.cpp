#include "host_signals/host_sampler.hpp"

#include <fmt/format.h>

#include <thread>

#include "host_signals/host_rates.hpp"

namespace gpuwatch::host_signals {
namespace {

constexpr std::size_t kProcFileBound = 1 << 20;  // /proc/stat of a 1,000-core machine is ~100 kB

template <typename Parsed, typename Parse>
std::optional<Parsed> read_parsed(const HostFiles& files, const char* path, Parse parse) {
  auto text = files.read(path, kProcFileBound);
  if (!text) return std::nullopt;
  return parse(*text);
}

std::optional<Pressure> read_pressure(const HostFiles& files, const char* path) {
  auto pressure = read_parsed<Pressure>(files, path, parse_pressure);
  if (pressure && !pressure->some && !pressure->full) return std::nullopt;  // psi=0: the file errs or is empty
  return pressure;
}

std::vector<IbPortCounters> read_ib_ports(const HostFiles& files, const std::vector<std::string>& devices) {
  std::vector<IbPortCounters> out;
  for (const auto& device : devices) {
    const std::string ports_dir = fmt::format("/sys/class/infiniband/{}/ports", device);
    auto ports = files.list(ports_dir);
    if (!ports) continue;
    for (const auto& port : *ports) {
      const std::string counters = fmt::format("{}/{}/counters/", ports_dir, port);
      auto counter = [&](const char* name) -> std::optional<std::uint64_t> {
        auto text = files.read(counters + name, 64);
        return text ? parse_counter(*text) : std::nullopt;
      };
      IbPortCounters p{device, port, counter("port_rcv_data"), counter("port_xmit_data"), counter("port_rcv_packets"),
                       counter("port_xmit_packets")};
      if (p.rx_bytes) p.rx_bytes = ib_data_bytes(*p.rx_bytes);
      if (p.tx_bytes) p.tx_bytes = ib_data_bytes(*p.tx_bytes);
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace

HostSampler::HostSampler(std::shared_ptr<const HostFiles> files) : files_(std::move(files)) {
  ib_devices_ = files_->list("/sys/class/infiniband");
}

HostSampler HostSampler::under_root(const std::string& host_root) {
  return HostSampler(std::make_shared<RootedHostFiles>(host_signals_root(host_root)));
}

HostReading HostSampler::read(SteadyClock::time_point at) const {
  const HostFiles& files = *files_;
  HostReading r;
  r.at = at;
  r.taken = std::chrono::system_clock::now();
  r.cpu = read_parsed<ProcStat>(files, "/proc/stat", parse_proc_stat);
  if (r.cpu && !r.cpu->total) r.cpu.reset();
  r.cpu_pressure = read_pressure(files, "/proc/pressure/cpu");
  r.memory_pressure = read_pressure(files, "/proc/pressure/memory");
  r.io_pressure = read_pressure(files, "/proc/pressure/io");
  r.memory = read_parsed<MemInfo>(files, "/proc/meminfo", parse_meminfo);
  r.swap = read_parsed<SwapCounters>(files, "/proc/vmstat", parse_vmstat);
  if (auto disks = read_parsed<std::vector<DiskCounters>>(files, "/proc/diskstats", parse_diskstats)) {
    const auto whole = files.list("/sys/block");
    std::erase_if(*disks, [&](const DiskCounters& d) { return !counted_disk(d.name, whole); });
    r.disks = std::move(*disks);
  }
  r.interfaces = read_parsed<std::vector<InterfaceCounters>>(files, "/proc/net/dev", parse_net_dev);
  if (ib_devices_) r.ib_ports = read_ib_ports(files, *ib_devices_);
  return r;
}

HostSample HostSampler::sample(SteadyClock::time_point at) {
  HostReading now = read(at);
  HostSample out = host_sample_of(last_, now);
  last_ = std::move(now);
  return out;
}

HostSample HostSampler::sample_after(std::chrono::milliseconds min_interval) {
  if (last_) std::this_thread::sleep_until(last_->at + min_interval);
  return sample();
}

}  // namespace gpuwatch::host_signals
