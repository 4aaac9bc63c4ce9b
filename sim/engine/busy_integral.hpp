#pragma once
// Busy time of a GPU: the integral of its utilization (the load before measurement noise,
// Simulation::load) over scenario time. A busy counter read at two times gives the average
// utilization between them, as real engine counters do: Level Zero's zesEngineGetActivity
// activeTime (sim/ze_driver) and DRM fdinfo's drm-engine-* ns are both such counters.
// Integrated on a fixed grid, continued from the last read (a read earlier than that restarts
// from 0), so reads are cheap and every reader sees the same counter for the same time.
#include <cstdint>
#include <mutex>
#include <vector>

#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim {

class BusyIntegral {
 public:
  explicit BusyIntegral(const Simulation& sim);

  // Seconds GPU (scenario index) was busy from scenario time 0 to T (0 for T <= 0).
  double busy_seconds(unsigned gpu, double t) const;

  static constexpr double kStepS = 0.25;  // integration grid, scenario seconds

 private:
  struct Accumulated {
    std::int64_t step = 0;  // grid steps integrated so far
    double busy_s = 0;
  };
  const Simulation& sim_;
  mutable std::mutex mutex_;
  mutable std::vector<Accumulated> acc_;
};

}  // namespace gpuwatch::sim
