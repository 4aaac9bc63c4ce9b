#include "jobs/energy_timeline.hpp"

#include <algorithm>
#include <cmath>

#include "jobs/device_stats.hpp"

namespace gpuwatch::jobs {

using core::FieldId;

void add_point(EnergyTimeline& timeline, EnergyPoint point) {
  auto& points = timeline.points;
  if (points.size() >= kMaxTimelinePoints) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < points.size(); i += 2) points[kept++] = points[i];
    points.resize(kept);
    ++timeline.halvings;
  }
  points.push_back(point);
}

void add_point(EnergyTimeline& timeline, const core::DeviceSnapshot& device, TimePoint at) {
  EnergyPoint p;
  p.at = at;
  p.counter_j = device.get(FieldId::EnergyTotal).as_double();
  p.power_w = device.get(FieldId::PowerDraw).as_double();
  p.utilization = device.get(FieldId::UtilizationGpu).as_double();
  p.memory_used_bytes = device.get(FieldId::MemoryUsed).as_uint();
  for (const auto& r : throttle_reasons()) {
    if (auto active = device.get(r.active).as_double(); active && *active != 0) p.throttled = true;
  }
  add_point(timeline, p);
}

const char* to_string(EnergySource source) { return source == EnergySource::Counter ? "counter" : "estimated"; }

namespace {

double timeline_seconds_between(TimePoint a, TimePoint b) { return std::chrono::duration<double>(b - a).count(); }

std::optional<CumulativeEnergy> from_counter(const EnergyTimeline& timeline) {
  CumulativeEnergy out;
  out.source = EnergySource::Counter;
  std::optional<double> last;
  double sum = 0;
  for (std::size_t i = 0; i < timeline.points.size(); ++i) {
    const auto& p = timeline.points[i];
    if (!p.counter_j) continue;
    if (last && *p.counter_j < *last) return std::nullopt;  // went back (driver reload): not usable
    if (last) sum += (*p.counter_j - *last) * p.share;
    last = p.counter_j;
    out.at.push_back(p.at);
    out.joules.push_back(sum);
    out.point.push_back(i);
  }
  if (out.at.size() < 2) return std::nullopt;
  return out;
}

std::optional<CumulativeEnergy> from_power(const EnergyTimeline& timeline) {
  CumulativeEnergy out;
  out.source = EnergySource::Estimated;
  const EnergyPoint* previous = nullptr;
  double sum = 0;
  // A halved timeline's points are further apart than the samples were: the gap limit grows with it.
  const double max_gap_s = std::ldexp(kMaxIntegrationGapS, static_cast<int>(std::min<std::size_t>(timeline.halvings, 20)));
  bool covered = false;
  for (std::size_t i = 0; i < timeline.points.size(); ++i) {
    const auto& p = timeline.points[i];
    if (!p.power_w) continue;
    if (previous != nullptr) {
      double dt = timeline_seconds_between(previous->at, p.at);
      if (dt <= 0) continue;  // same instant (or back): nothing to integrate
      if (dt <= max_gap_s) {
        sum += 0.5 * (*p.power_w + *previous->power_w) * dt * p.share;
        covered = true;
      }
    }
    previous = &p;
    out.at.push_back(p.at);
    out.joules.push_back(sum);
    out.point.push_back(i);
  }
  if (!covered) return std::nullopt;
  return out;
}

}  // namespace

std::optional<double> CumulativeEnergy::at_time(TimePoint t) const {
  if (at.empty() || t < at.front() || t > at.back()) return std::nullopt;
  auto upper = std::upper_bound(at.begin(), at.end(), t);
  if (upper == at.end()) return joules.back();
  std::size_t hi = static_cast<std::size_t>(upper - at.begin());
  std::size_t lo = hi - 1;
  double span = timeline_seconds_between(at[lo], at[hi]);
  if (span <= 0) return joules[hi];
  double f = timeline_seconds_between(at[lo], t) / span;
  return joules[lo] + f * (joules[hi] - joules[lo]);
}

std::optional<CumulativeEnergy> cumulative_energy(const EnergyTimeline& timeline) {
  if (auto counter = from_counter(timeline)) return counter;
  return from_power(timeline);
}

}  // namespace gpuwatch::jobs
