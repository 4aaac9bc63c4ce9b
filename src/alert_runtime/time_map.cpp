#include "alert_runtime/time_map.hpp"

namespace gpuwatch::alert_runtime {
namespace {

alerts::TimePoint map(alerts::TimePoint t, alerts::TimePoint origin, double factor) {
  auto offset = std::chrono::duration<double>(t - origin) * factor;
  return origin + std::chrono::duration_cast<alerts::TimePoint::duration>(offset);
}

template <typename Fn>
void each_time(alerts::Alert& alert, Fn fn) {
  alert.active_since = fn(alert.active_since);
  for (auto* t : {&alert.fired_at, &alert.resolved_at, &alert.last_notified}) {
    if (*t) **t = fn(**t);
  }
}

}  // namespace

TimeMap::TimeMap(alerts::TimePoint origin, double scale) : origin_(origin), scale_(scale > 0 ? scale : 1.0) {}

alerts::TimePoint TimeMap::to_engine(alerts::TimePoint wall) const {
  return scale_ == 1.0 ? wall : map(wall, origin_, scale_);
}

alerts::TimePoint TimeMap::to_wall(alerts::TimePoint engine) const {
  return scale_ == 1.0 ? engine : map(engine, origin_, 1.0 / scale_);
}

void TimeMap::to_wall(alerts::Alert& alert) const {
  if (scale_ != 1.0) each_time(alert, [this](alerts::TimePoint t) { return to_wall(t); });
}

void TimeMap::to_engine(alerts::Alert& alert) const {
  if (scale_ != 1.0) each_time(alert, [this](alerts::TimePoint t) { return to_engine(t); });
}

}  // namespace gpuwatch::alert_runtime
