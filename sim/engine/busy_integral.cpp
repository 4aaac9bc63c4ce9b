#include "sim/engine/busy_integral.hpp"

#include <algorithm>
#include <cmath>

namespace gpuwatch::sim {

BusyIntegral::BusyIntegral(const Simulation& sim) : sim_(sim), acc_(sim.gpu_count()) {}

double BusyIntegral::busy_seconds(unsigned gpu, double t) const {
  if (gpu >= acc_.size() || !(t > 0)) return 0;
  auto busy_share = [&](double at) { return std::clamp(sim_.load(gpu, at).util / 100.0, 0.0, 1.0); };
  std::lock_guard lock(mutex_);
  Accumulated& a = acc_[gpu];
  const auto target = static_cast<std::int64_t>(std::floor(t / kStepS));
  if (target < a.step) a = Accumulated{};  // the clock went back: integrate again from 0
  // A far-away time (days of scenario time) is walked in coarser strides so a first read stays fast.
  constexpr std::int64_t kMaxSteps = 400'000;
  const std::int64_t stride = std::max<std::int64_t>(1, (target - a.step) / kMaxSteps);
  while (a.step < target) {
    const std::int64_t n = std::min(stride, target - a.step);
    // The share at a step's start holds for the whole step, the partial step included below,
    // so the counter never goes back as T grows.
    a.busy_s += busy_share(static_cast<double>(a.step) * kStepS) * static_cast<double>(n) * kStepS;
    a.step += n;
  }
  const double tail = t - static_cast<double>(target) * kStepS;
  return a.busy_s + (tail > 0 ? busy_share(static_cast<double>(target) * kStepS) * tail : 0);
}

}  // namespace gpuwatch::sim
