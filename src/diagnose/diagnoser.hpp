#pragma once
// The diagnose engine, incremental: feed it every snapshot in time order (observe) and the
// Xid events as they come (observe_xid); ask for the findings at any time. Each GPU-sample
// costs O(1) amortised (windowed running sums, no re-scan of the history).
//
//   diagnose::Diagnoser d;
//   for (const core::Snapshot& s : samples) d.observe(s);   // processes read, for the process kinds
//   d.observe_xid(6, 31, when);                             // from the Xid watcher (Xids are not in a Snapshot)
//   for (const auto& f : d.findings()) ...                  // active now
//   d.all_findings();                                       // active and ended (a window's diagnosis)
#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "core/snapshot.hpp"
#include "diagnose/finding.hpp"
#include "diagnose/finding_tracker.hpp"
#include "diagnose/gpu_state.hpp"
#include "diagnose/host_checks.hpp"
#include "diagnose/host_view.hpp"
#include "diagnose/jobs.hpp"

namespace gpuwatch::diagnose {

class Diagnoser {
 public:
  Diagnoser() = default;

  // One sample of the machine. Snapshots older than the last one observed are ignored. The host
  // sample it carries (snapshot.host, issue 25) names causes: input_starved's, comm_bound,
  // host_memory_pressure, low_utilization's host words; without it every check is as before.
  void observe(const core::Snapshot& snapshot);
  // What is known about process PID beyond the snapshot (command line, user, launcher, Slurm
  // job, pod, `gpuwatch run` job): groups its GPUs into jobs (jobs.hpp). Optional; without it
  // the GPUs of one job are found by their process name.
  void identify(std::uint32_t pid, ProcessIdentity identity);
  // An Xid event of GPU (NVML index) at AT. Raises the xid finding at once; it stays active
  // for thresholds::kHardwareHoldS after the GPU's last Xid of that number.
  void observe_xid(unsigned gpu, std::uint64_t xid, std::chrono::system_clock::time_point at);

  std::vector<Finding> findings() const;                 // active now
  std::vector<Finding> findings_for(unsigned gpu) const;  // active now, involving GPU
  std::vector<Finding> all_findings() const;             // active and ended, by start
  std::size_t samples_observed() const { return samples_; }

 private:
  void take_sample(const core::DeviceSnapshot& device, double t_s);
  void check_device(unsigned index);

  std::map<unsigned, GpuState> gpus_;
  JobTable jobs_;
  FindingTracker tracker_;
  std::set<TrackKey> imbalance_keys_;
  HostView host_;                  // the host sample of the current snapshot (issue 25)
  CommBoundState comm_;
  HostMemoryState host_memory_;
  std::vector<unsigned> held_;     // the current snapshot's GPUs a compute process holds
  double last_t_s_ = kNever;
  std::size_t samples_ = 0;
};

}  // namespace gpuwatch::diagnose
