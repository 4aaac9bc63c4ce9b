#include "host_signals/host_sampler.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <algorithm>
#include <thread>

#include "host_signals/host_rates.hpp"
#include "host_signals/process_tree_cpu.hpp"

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

HostSampler HostSampler::under_root(const std::string& host_root,
                                    std::shared_ptr<backend::SimulatedTree> simulated_tree) {
  if (simulated_tree) simulated_tree->refresh();  // the simulated /proc/stat exists before the root is chosen
  HostSampler sampler = under_root(host_root);
  sampler.simulated_ = std::move(simulated_tree);
  return sampler;
}

HostReading HostSampler::read(SteadyClock::time_point at) const {
  if (simulated_) simulated_->refresh();
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
    // /sys/block is listed again only when the devices of /proc/diskstats change (a disk added or
    // removed), not at every reading.
    const bool same_devices = block_devices_ && disks->size() == diskstats_names_.size() &&
                              std::equal(disks->begin(), disks->end(), diskstats_names_.begin(),
                                         [](const DiskCounters& d, const std::string& name) { return d.name == name; });
    if (!same_devices) {
      block_devices_ = files.list("/sys/block");
      diskstats_names_.clear();
      for (const auto& d : *disks) diskstats_names_.push_back(d.name);
    }
    const auto& whole = *block_devices_;
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

HostSample HostSampler::sample(SteadyClock::time_point at, const std::set<unsigned>& roots) {
  HostSample out = sample(at);
  static const double ticks_per_s = [] {
    const long hz = sysconf(_SC_CLK_TCK);
    return hz > 0 ? static_cast<double>(hz) : 100.0;
  }();
  std::map<unsigned, TreeReading> now;
  for (unsigned pid : roots) {
    auto tree = process_tree_cpu(*files_, {pid});
    if (!tree) continue;  // not alive (or not visible under this root)
    ProcessTreeRates rates{pid, std::nullopt, tree->processes};
    if (auto before = last_trees_.find(pid); before != last_trees_.end() && tree->cpu_ticks >= before->second.cpu_ticks) {
      const double dt = std::chrono::duration<double>(at - before->second.at).count();
      if (dt >= kMinCpuWindowS) rates.cpu_cores = static_cast<double>(tree->cpu_ticks - before->second.cpu_ticks) / ticks_per_s / dt;
    }
    now[pid] = TreeReading{tree->cpu_ticks, at};
    out.process_trees.push_back(rates);
  }
  last_trees_ = std::move(now);
  return out;
}

HostSample HostSampler::sample_after(std::chrono::milliseconds min_interval) {
  if (last_) std::this_thread::sleep_until(last_->at + min_interval);
  return sample();
}

}  // namespace gpuwatch::host_signals
