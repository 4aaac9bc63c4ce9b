#pragma once
// The host signals' I/O edge: reads /proc/stat, /proc/pressure/*, /proc/meminfo, /proc/vmstat,
// /proc/diskstats, /proc/net/dev and the InfiniBand port counters under a host root (one small
// read each, a few more per InfiniBand port), and keeps the last reading to turn the next one
// into rates. Not thread-safe: one owner samples it.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "backend/simulated_tree.hpp"

#include "host_signals/host_files.hpp"
#include "host_signals/host_reading.hpp"
#include "host_signals/host_sample.hpp"

namespace gpuwatch::host_signals {

class HostSampler {
 public:
  using SteadyClock = std::chrono::steady_clock;
  explicit HostSampler(std::shared_ptr<const HostFiles> files);
  // The real host under HOST_ROOT ("/" or GPUWATCH_HOST_ROOT; see host_signals_root()).
  static HostSampler under_root(const std::string& host_root);
  // The same on a simulation: SIMULATED_TREE (when not null) is asked to bring its files to the
  // moment before each reading (the simulated host, sim/engine/host_signal_tree.hpp).
  static HostSampler under_root(const std::string& host_root, std::shared_ptr<backend::SimulatedTree> simulated_tree);

  // Reads the counters now (no state).
  HostReading read(SteadyClock::time_point at = SteadyClock::now()) const;
  // Reads, and gives the rates since the previous call (none at the first).
  HostSample sample(SteadyClock::time_point at = SteadyClock::now());
  // The same, with the CPU of ROOTS' process trees (the GPU processes and their workers) in
  // process_trees: in cores over the time since the previous call that saw the same root.
  HostSample sample(SteadyClock::time_point at, const std::set<unsigned>& roots);
  // sample(), once at least MIN_INTERVAL has passed since the previous reading (sleeping the
  // rest): a one-shot command reads first, samples its GPUs meanwhile, then calls this.
  HostSample sample_after(std::chrono::milliseconds min_interval);
  // Whether the next sample() has a reading to compare with.
  bool primed() const { return last_.has_value(); }

 private:
  std::shared_ptr<const HostFiles> files_;
  std::optional<std::vector<std::string>> ib_devices_;  // listed once: cards do not come and go
  // /sys/block's listing (whole disks), kept while /proc/diskstats names the same devices.
  mutable std::optional<std::optional<std::vector<std::string>>> block_devices_;
  mutable std::vector<std::string> diskstats_names_;
  std::optional<HostReading> last_;
  std::shared_ptr<backend::SimulatedTree> simulated_;
  struct TreeReading {
    std::uint64_t cpu_ticks = 0;
    SteadyClock::time_point at;
  };
  std::map<unsigned, TreeReading> last_trees_;  // by root PID: the roots of the previous call
};

}  // namespace gpuwatch::host_signals
