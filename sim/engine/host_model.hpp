#pragma once
// The simulated host over time (`host: signals:`): the values at a scenario moment (the host
// phase of that moment, with its `gaps:` values while GPU 0 sits in a gap), and their integrals
// over the wall clock, from which the /proc and /sys counters are made (host_signal_files.hpp).
//
// Host phases loop on the scenario clock from scenario time 0, like the GPUs' phases. GPU 0 is in
// a gap when its load (Simulation::load, before measurement noise) is zero: the idle part of a
// dataloader_starvation phase, an idle phase. A scenario without GPUs has no gaps.
//
// Integrals run on the wall clock (scenario seconds / time_scale, as vendor_tree.hpp's counters
// do), so a counter read at two moments gives the scenario's mean rate between them at any time
// scale. Each is a function of the time alone: a fixed grid from scenario time 0, continued from
// the last call (an earlier time restarts from 0).
#include <cstdint>
#include <vector>

#include "sim/engine/host_values.hpp"
#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim {

// Whether GPU 0 sits in a gap at scenario time T.
bool host_in_gap(const Simulation& sim, double t);

// The host values at scenario time T (the scenario must have host signals).
HostValues host_values_at(const Simulation& sim, double t);

// The most DataLoader workers any host phase has (worker slots 0 .. this - 1).
unsigned host_max_workers(const HostSignals& signals);

struct HostTotals {
  double wall_s = 0;                // wall seconds from scenario time 0
  HostValues integral{};            // each value times wall seconds (e.g. % x s, B/s x s = B)
  std::vector<double> worker_cpu_s; // per worker slot: CPU seconds of that worker so far
};

class HostIntegral {
 public:
  explicit HostIntegral(const Simulation& sim);

  // The integrals from scenario time 0 to T (all 0 for T <= 0). Not thread-safe.
  HostTotals at(double t);
  // The mean of each value over the WINDOW_WALL_S wall seconds before scenario time T (PSI's
  // avg10/avg60/avg300): the values before scenario time 0 are the first phase's.
  HostValues window_mean(double t, double window_wall_s) const;

  static constexpr double kStepS = 0.25;  // integration grid, scenario seconds

 private:
  void add(HostTotals& totals, double t_mid, double dt_scenario) const;

  const Simulation& sim_;
  unsigned slots_ = 0;
  std::int64_t step_ = 0;  // grid steps summed so far
  HostTotals acc_;
};

}  // namespace gpuwatch::sim
