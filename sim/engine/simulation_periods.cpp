// Simulation::period_sample: the driver's utilization sample buffer. NVML's utilization is
// "percent of time over the past sample period during which one or more kernels was
// executing" (nvmlUtilization_t), so each sample is the busy share over one whole period of
// the GPU's model, never the load at one instant: a poller cannot alias a sub-second pattern.
#include <algorithm>
#include <cmath>

#include "sim/engine/noise.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/simulation_internal.hpp"

namespace gpuwatch::sim {

using namespace detail;

namespace {

// Sub-steps of the midpoint rule over one period where the load varies inside it: a busy
// share to within 1/(2 * 32) of a period at its edges.
constexpr int kPeriodSteps = 32;

bool varies_within_phase(PhaseKind kind) {
  return kind == PhaseKind::DataloaderStarvation || kind == PhaseKind::Replay;
}

}  // namespace

double Simulation::power_instant_w(unsigned g, double t) const {
  const auto& gpu = scenario_.gpus[g];
  const double p_limit = num_or(gpu.values[key_index(Key::EnforcedPowerLimit)], 1e9);
  const double w = instant(g, t).power_w *
                   (1 + 0.03 * gpu.noise * unit_noise(gpu.seed, g, kPower + 100, static_cast<std::int64_t>(t * 10)));
  return std::round(std::clamp(w, 1.0, p_limit * 1.1) * 100) / 100;
}

std::int64_t Simulation::period_index(unsigned g, double t) const {
  const double p = sample_period_s(g);
  return static_cast<std::int64_t>(std::floor(t / p + 1e-9));
}

Simulation::PeriodSample Simulation::period_sample(unsigned g, std::int64_t k) const {
  const auto& gpu = scenario_.gpus[g];
  const double p = sample_period_s(g);
  const double t0 = static_cast<double>(k - 1) * p, t1 = static_cast<double>(k) * p;
  double util = 0, mem_util = 0;
  double tau0 = 0, tau1 = 0;
  std::int64_t it0 = 0, it1 = 0;
  const int ph0 = phase_at(g, t0, tau0, it0), ph1 = phase_at(g, std::nextafter(t1, t0), tau1, it1);
  const bool constant = ph0 == ph1 && it0 == it1 &&
                        (ph0 < 0 || !varies_within_phase(gpu.phases[static_cast<std::size_t>(ph0)].kind));
  if (constant) {
    const Instant in = instant(g, t0);
    util = in.util;
    mem_util = in.mem_util;
  } else {
    for (int i = 0; i < kPeriodSteps; ++i) {
      const Instant in = instant(g, t0 + (i + 0.5) * p / kPeriodSteps);
      util += in.util;
      mem_util += in.mem_util;
    }
    util /= kPeriodSteps;
    mem_util /= kPeriodSteps;
  }
  // Measurement noise of a few percent, quantized like the driver's integer %.
  const double noise = gpu.noise;
  const auto bucket = static_cast<std::int64_t>(std::floor(t1 + 1e-9));
  const double n_util = unit_noise(gpu.seed, g, kUtil, bucket);
  double u = util + (util > 0 && util < 100 ? 2.0 * noise * n_util : 0);
  if (util >= 98) u = util - std::fabs(noise * n_util);
  auto pct = [](double x) { return std::round(std::clamp(x, 0.0, 100.0)); };
  PeriodSample out;
  out.util = pct(u);
  out.mem_util = pct(mem_util + 3.0 * noise * unit_noise(gpu.seed, g, kMemUtil, bucket));
  out.power_w = power_instant_w(g, t1);
  return out;
}

}  // namespace gpuwatch::sim
