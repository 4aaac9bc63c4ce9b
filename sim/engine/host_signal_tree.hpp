#pragma once
// The simulated host's /proc and /sys (`host: signals:`, issue 25) written under the simulated
// host root (GPUWATCH_HOST_ROOT) at one moment, as src/host_signals/ reads them on a real host:
//   proc/stat, proc/pressure/{cpu,memory,io}, proc/meminfo, proc/vmstat, proc/diskstats,
//   sys/block/<disk>/stat, proc/net/dev, sys/class/infiniband/<dev>/ports/<n>/counters/port_*,
//   proc/<pid>/stat and proc/<pid>/task/<pid>/children for each GPU process with a PID and its
//   DataLoader workers (made-up PIDs, host_signal_files.hpp), each worker's own stat.
// Counters are integrals over the wall clock (host_model.hpp): two reads at any moments give the
// scenario's mean rates between them. Every file is replaced atomically (atomic_file_writer.hpp).
// A scenario without host signals has no tree: none of these files is written.
#include <cstdint>
#include <filesystem>
#include <set>

#include "core/result.hpp"
#include "sim/engine/atomic_file_writer.hpp"
#include "sim/engine/host_model.hpp"
#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim {

class HostSignalTree {
 public:
  // SIM must outlive the tree and have host signals. EPOCH_MS: the Unix ms of scenario time 0.
  HostSignalTree(const Simulation& sim, std::filesystem::path root, std::int64_t epoch_ms);

  // Writes every file as it is at scenario time T (seconds). One caller at a time.
  core::Result<void> render_at(double t);
  core::Result<void> render_at_unix_ms(std::int64_t unix_ms);

 private:
  bool render_processes(const HostValues& now, const HostTotals& totals);

  const Simulation& sim_;
  std::filesystem::path root_;
  std::int64_t epoch_ms_;
  HostIntegral integral_;
  AtomicFileWriter writer_;
  std::set<unsigned> pids_written_;  // processes (GPU processes and workers) of the last render
};

}  // namespace gpuwatch::sim
