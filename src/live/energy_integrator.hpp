#pragma once
// Energy estimated from power samples, for GPUs without the driver's energy counter (issue 29):
// power.draw integrated over one GPU's samples (trapezoids between consecutive samples), from 0
// when gpuwatch started. A segment ends at a sample without a power reading (absent, failed, GPU
// lost): the time until the next reading is not integrated, nor is a gap between two readings
// longer than max_gap (a hung or stopped sampler). Pure: the caller passes the sample times.
#include <chrono>
#include <optional>

namespace gpuwatch::live {

class EnergyIntegrator {
 public:
  using Clock = std::chrono::steady_clock;

  explicit EnergyIntegrator(Clock::duration max_gap) : max_gap_(max_gap) {}

  // One sample at AT: its power draw in watts, or nullopt when there is none (not read, failed,
  // not supported, GPU lost or inaccessible).
  void add(Clock::time_point at, std::optional<double> power_watts);

  // Joules integrated so far; nullopt until a power reading was seen (absent stays absent).
  std::optional<double> joules() const { return joules_; }

 private:
  Clock::duration max_gap_;
  std::optional<double> joules_;
  std::optional<Clock::time_point> last_at_;  // the previous reading of the current segment
  double last_watts_ = 0;
};

}  // namespace gpuwatch::live
