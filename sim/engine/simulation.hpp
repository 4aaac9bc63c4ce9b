#pragma once
// A loaded scenario ready to be evaluated: per GPU, the static values (from the catalog
// and the scenario) and the dynamic values at scenario time t, a pure function of
// (scenario, t). The stand-in driver caches one DynamicSample per GPU and time quantum.
#include <array>
#include <bitset>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "sim/engine/scenario.hpp"

namespace gpuwatch::sim {

struct ProcessSample {
  unsigned pid = 0;
  double memory_mib = 0;
  bool compute = true;
  bool graphics = false;
  unsigned sm_util = 0;   // %
  unsigned mem_util = 0;  // %
  int mig = -1;           // MIG instance index, -1: whole GPU
};

struct DynamicSample {
  double t = -1;                          // scenario seconds
  bool lost = false;
  std::array<double, kKeyCount> num{};    // dynamic values in display units
  std::bitset<kKeyCount> has;             // which entries of num are set
  std::vector<ProcessSample> processes;   // visible processes with a PID
  std::vector<double> mig_used_mib;       // memory used per MIG instance
  // NVLink data moved since scenario time 0, KiB over scenario seconds (transmitted, received):
  // the integral of nvlink.tx/rx_throughput times the phase's share (issue 25). The driver divides
  // by the time scale so that the counters grow at the scenario's rate on the wall clock.
  std::array<double, 2> nvlink_kib{};
  int phase = -1;                         // index of the current phase, -1: none
};

// Resolves process PIDs: fixed, from an environment variable, or from the stand-in
// list ("gpu:proc=pid,..."). 0 means no PID is available: the process is not shown.
struct PidSources {
  std::map<std::pair<int, int>, unsigned> standins;  // (gpu, process) -> pid
  static PidSources from_environment();
  static std::map<std::pair<int, int>, unsigned> parse_standins(std::string_view text);
};

class Simulation {
 public:
  Simulation(Scenario scenario, const PidSources& pids);

  const Scenario& scenario() const { return scenario_; }
  std::size_t gpu_count() const { return scenario_.gpus.size(); }
  const Value& static_value(unsigned gpu, Key key) const { return scenario_.gpus[gpu].values[key_index(key)]; }
  // PIDs of each GPU's processes (same order as GpuSpec::processes; MIG processes after).
  // A `pid_file` process is 0 here: its PID is read from the file when evaluated (live_pid).
  const std::vector<unsigned>& pids(unsigned gpu) const { return pids_[gpu]; }
  // The PID of process INDEX of GPU now: the resolved one, or what its pid_file holds (0: absent).
  unsigned live_pid(unsigned gpu, std::size_t index) const;

  // The dynamic state of GPU at scenario time T (seconds). Deterministic.
  void evaluate(unsigned gpu, double t, DynamicSample& out) const;

  // The load of GPU at scenario time T before measurement noise: utilization and memory
  // utilization (percent) and the phase index (-1: none). The GPM model reads it (gpm_model.hpp).
  struct Load {
    double util = 0, mem_util = 0;
    int phase = -1;
  };
  Load load(unsigned gpu, double t) const;

  // The driver's utilization sample buffer (docs/simulator.md, "Sample periods"). Sample K of
  // GPU covers the scenario seconds [(K-1) P, K P) of its period P and is stamped K P: its
  // utilization and memory utilization are the busy shares over that period (with the GPU's
  // measurement noise, in the driver's whole percent), its power the instant power at K P.
  // utilization.gpu at time t is the newest sample: K = period_index(gpu, t).
  struct PeriodSample {
    double util = 0, mem_util = 0;  // percent
    double power_w = 0;             // instant power at the end of the period
  };
  double sample_period_s(unsigned gpu) const { return scenario_.gpus[gpu].sample_period_s; }
  std::int64_t period_index(unsigned gpu, double t) const;
  PeriodSample period_sample(unsigned gpu, std::int64_t k) const;

  // Scenario time at which GPU is lost (infinity: never).
  double lost_at(unsigned gpu) const { return lost_at_[gpu]; }
  // Events of GPU in time order (expanded over looping timelines up to a horizon).
  const std::vector<ScheduledEvent>& events(unsigned gpu) const { return events_[gpu]; }
  // Name (first word of the command line) of a scenario process with this PID.
  const std::string* process_name(unsigned pid) const;

 private:
  struct Instant;
  Instant instant(unsigned gpu, double t) const;
  int phase_at(unsigned gpu, double t, double& tau, std::int64_t& iteration) const;
  double power_instant_w(unsigned gpu, double t) const;  // power.draw.instant at T, with its noise
  void integrate_counters(unsigned gpu, double t, double& energy_j, std::array<double, 3>& throttled_s,
                          std::array<double, 2>& nvlink_kib) const;
  void expand_events(unsigned gpu);

  Scenario scenario_;
  std::vector<std::vector<unsigned>> pids_;
  std::vector<std::vector<std::string>> pid_files_;  // per GPU and process: "" unless pid_file
  std::vector<double> cycle_s_;
  std::vector<double> lost_at_;
  std::vector<std::vector<ScheduledEvent>> events_;
  std::map<unsigned, std::string> names_;
  struct Integral {
    std::int64_t step = 0;
    double energy_j = 0;
    std::array<double, 3> throttled_s{};
    std::array<double, 2> nvlink_kib{};  // KiB (NVLink transmitted, received)
  };
  mutable std::mutex integral_mutex_;
  mutable std::vector<Integral> integrals_;
};

// Event type used internally for a remapped row (never delivered to clients).
inline constexpr std::uint64_t kEventRowRemap = 1ull << 40;

}  // namespace gpuwatch::sim
