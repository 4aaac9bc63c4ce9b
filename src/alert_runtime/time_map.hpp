#pragma once
// The engine's clock against the wall clock. On the simulated driver a scenario may run
// time_scale times faster than the wall clock; the engine then reads scenario time, so a rule's
// `for: 5m` means five scenario minutes, while every time it reports (active since, fired,
// resolved, events) is mapped back to the wall clock. On a real driver the scale is 1 and both
// clocks are the same.
#include <chrono>

#include "alerts/alert.hpp"

namespace gpuwatch::alert_runtime {

class TimeMap {
 public:
  TimeMap() = default;
  // ORIGIN: where both clocks agree (the start); SCALE: engine seconds per wall second (> 0).
  TimeMap(alerts::TimePoint origin, double scale);

  alerts::TimePoint to_engine(alerts::TimePoint wall) const;
  alerts::TimePoint to_wall(alerts::TimePoint engine) const;
  void to_wall(alerts::Alert& alert) const;   // every time in it
  void to_engine(alerts::Alert& alert) const;
  double scale() const { return scale_; }

 private:
  alerts::TimePoint origin_{};
  double scale_ = 1.0;
};

}  // namespace gpuwatch::alert_runtime
