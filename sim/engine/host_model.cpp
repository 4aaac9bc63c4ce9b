// The simulated host's values over time and their integrals (host_model.hpp).
#include "sim/engine/host_model.hpp"

#include <algorithm>
#include <cmath>

namespace gpuwatch::sim {

namespace host_model_detail {

const HostPhase& host_phase_at(const HostSignals& signals, double t) {
  const double cycle = signals.cycle_s();
  double x = std::max(0.0, t);
  if (cycle > 0) x = std::fmod(x, cycle);
  double start = 0;
  for (const auto& ph : signals.phases) {
    if (x < start + ph.duration_s) return ph;
    start += ph.duration_s;
  }
  return signals.phases.back();
}

constexpr double kGapLoad = 0.5;  // % of GPU 0's load below which it sits in a gap

}  // namespace host_model_detail

using host_model_detail::host_phase_at;
using host_model_detail::kGapLoad;

bool host_in_gap(const Simulation& sim, double t) {
  if (sim.gpu_count() == 0) return false;
  return sim.load(0, t).util < kGapLoad;
}

HostValues host_values_at(const Simulation& sim, double t) {
  const HostSignals& signals = *sim.scenario().host.signals;
  const HostPhase& ph = host_phase_at(signals, t);
  if (ph.has_gaps && host_in_gap(sim, t)) return ph.gap_values;
  return ph.values;
}

unsigned host_max_workers(const HostSignals& signals) {
  double most = 0;
  for (const auto& ph : signals.phases)
    most = std::max({most, host_value(ph.values, HostValue::Workers), host_value(ph.gap_values, HostValue::Workers)});
  return static_cast<unsigned>(most);
}

HostIntegral::HostIntegral(const Simulation& sim) : sim_(sim), slots_(host_max_workers(*sim.scenario().host.signals)) {
  acc_.worker_cpu_s.assign(slots_, 0);
}

void HostIntegral::add(HostTotals& totals, double t_mid, double dt_scenario) const {
  const HostValues v = host_values_at(sim_, t_mid);
  const double dt = dt_scenario / sim_.scenario().time_scale;
  totals.wall_s += dt;
  for (std::size_t i = 0; i < kHostValueCount; ++i) totals.integral[i] += v[i] * dt;
  const auto workers = static_cast<std::size_t>(host_value(v, HostValue::Workers));
  const double cpu = host_value(v, HostValue::WorkerCpu);
  for (std::size_t k = 0; k < workers && k < totals.worker_cpu_s.size(); ++k) totals.worker_cpu_s[k] += cpu * dt;
}

HostTotals HostIntegral::at(double t) {
  if (t <= 0) {
    HostTotals zero;
    zero.worker_cpu_s.assign(slots_, 0);
    return zero;
  }
  const auto whole = static_cast<std::int64_t>(std::floor(t / kStepS));
  if (whole < step_) {  // time went backwards: sum again from 0
    step_ = 0;
    acc_ = HostTotals{};
    acc_.worker_cpu_s.assign(slots_, 0);
  }
  // A far epoch in coarser steps (like the energy counter): the first call stays fast.
  constexpr std::int64_t kMaxSteps = 2'000'000;
  const std::int64_t stride = std::max<std::int64_t>(1, (whole - step_) / kMaxSteps);
  while (step_ < whole) {
    const std::int64_t n = std::min(stride, whole - step_);
    add(acc_, (static_cast<double>(step_) + 0.5) * kStepS, static_cast<double>(n) * kStepS);
    step_ += n;
  }
  HostTotals out = acc_;
  const double partial = t - static_cast<double>(whole) * kStepS;
  if (partial > 0) add(out, (static_cast<double>(whole) + 0.5) * kStepS, partial);
  return out;
}

HostValues HostIntegral::window_mean(double t, double window_wall_s) const {
  constexpr int kSteps = 100;
  const double span = window_wall_s * sim_.scenario().time_scale;
  HostValues mean{};
  for (int i = 0; i < kSteps; ++i) {
    const HostValues v = host_values_at(sim_, t - span + (i + 0.5) * span / kSteps);
    for (std::size_t k = 0; k < kHostValueCount; ++k) mean[k] += v[k] / kSteps;
  }
  return mean;
}

}  // namespace gpuwatch::sim
