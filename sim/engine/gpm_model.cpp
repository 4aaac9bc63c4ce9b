#include "sim/engine/gpm_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "sim/engine/noise.hpp"
#include "sim/engine/simulation_internal.hpp"

namespace gpuwatch::sim {

Simulation::Load Simulation::load(unsigned gpu, double t) const {
  Instant in = instant(gpu, t);
  return Load{in.util, in.mem_util, in.phase};
}

namespace {

// Share of the GPU's busy time spent by each unit, per kind of work.
struct Profile {
  double sm, occupancy, tensor, fp16, fp32, fp64, integer;
};

Profile profile_of(const Phase& ph) {
  switch (ph.kind) {
    case PhaseKind::SmallKernels: {  // launch-bound: few SMs busy (sm_share, 0.30 by default)
      const double k = ph.sm_share / 0.30;
      return {ph.sm_share, 0.08 * k, 0.06 * k, 0.02 * k, 0.10 * k, 0.0, 0.05 * k};
    }
    case PhaseKind::NcclHang: return {0.05, 0.02, 0.0, 0.0, 0.01, 0.0, 0.02};  // a few SMs poll a flag
    case PhaseKind::MemoryBound: return {0.70, 0.30, 0.08, 0.03, 0.25, 0.0, 0.08};   // waits on DRAM
    default: return {0.92, 0.45, 0.62, 0.18, 0.22, 0.01, 0.12};                     // dense matmuls (training)
  }
}

bool instance_busy(const GpuSpec& spec, int gpu_instance_id) {
  for (const auto& inst : spec.mig)
    if (static_cast<int>(inst.gpu_instance_id) == gpu_instance_id && !inst.processes.empty()) return true;
  return false;
}

void add_scaled(GpmActivity& sum, const GpmActivity& a, double w) {
  sum.graphics += a.graphics * w;
  sum.sm += a.sm * w;
  sum.sm_occupancy += a.sm_occupancy * w;
  sum.integer += a.integer * w;
  sum.tensor_any += a.tensor_any * w;
  sum.tensor_dfma += a.tensor_dfma * w;
  sum.tensor_hmma += a.tensor_hmma * w;
  sum.tensor_imma += a.tensor_imma * w;
  sum.dram += a.dram * w;
  sum.fp64 += a.fp64 * w;
  sum.fp32 += a.fp32 * w;
  sum.fp16 += a.fp16 * w;
  sum.pcie_tx_mib_s += a.pcie_tx_mib_s * w;
  sum.pcie_rx_mib_s += a.pcie_rx_mib_s * w;
}

}  // namespace

bool gpm_supported(const Simulation& sim, unsigned gpu) {
  const Value& cc = sim.static_value(gpu, Key::ComputeCap);
  double major = cc.is_number() ? cc.number : cc.kind == Value::Kind::Text ? std::atof(cc.text.c_str()) : 0;
  return major >= 9.0;
}

GpmActivity gpm_activity(const Simulation& sim, unsigned gpu, int gpu_instance_id, double t) {
  GpmActivity a;
  const GpuSpec& spec = sim.scenario().gpus[gpu];
  if (gpu_instance_id >= 0 && !instance_busy(spec, gpu_instance_id)) return a;
  Simulation::Load load = sim.load(gpu, t);
  if (load.phase < 0) return a;  // a static GPU: no work
  const Profile p = profile_of(spec.phases[static_cast<std::size_t>(load.phase)]);
  const double u = std::clamp(load.util, 0.0, 100.0);
  const double m = std::clamp(load.mem_util, 0.0, 100.0);
  // A few percent of smooth, seeded noise on the SM-side shares (0 stays 0).
  const double jitter = 1.0 + 0.03 * spec.noise *
                                  smooth_noise(spec.seed, gpu, 60u + static_cast<unsigned>(gpu_instance_id + 1), t, 0.5);
  auto share = [&](double k) { return std::clamp(k * u * jitter, 0.0, u); };
  a.graphics = u;
  a.sm = share(p.sm);
  a.sm_occupancy = share(p.occupancy);
  a.integer = share(p.integer);
  a.tensor_any = share(p.tensor);
  a.tensor_hmma = 0.95 * a.tensor_any;  // fp16/bf16 matmuls; no int8, no fp64 tensor work
  a.fp64 = share(p.fp64);
  a.fp32 = share(p.fp32);
  a.fp16 = share(p.fp16);
  a.dram = m;
  a.pcie_tx_mib_s = u * 120.0 / 1024.0;  // as pcie.tx_throughput (KB/s) of the same load
  a.pcie_rx_mib_s = u * 450.0 / 1024.0;
  return a;
}

GpmActivity gpm_average(const Simulation& sim, unsigned gpu, int gpu_instance_id, double t1, double t2) {
  if (t2 < t1) std::swap(t1, t2);
  const double span = t2 - t1;
  if (span <= 0) return gpm_activity(sim, gpu, gpu_instance_id, t1);
  constexpr double kStep = 0.25;  // scenario seconds between points (data-loader cycles last 8 s)
  constexpr int kMaxPoints = 240;
  const int n = std::clamp(static_cast<int>(std::ceil(span / kStep)), 1, kMaxPoints);
  GpmActivity sum;
  for (int i = 0; i < n; ++i) {
    double t = t1 + span * (i + 0.5) / n;  // midpoints
    add_scaled(sum, gpm_activity(sim, gpu, gpu_instance_id, t), 1.0 / n);
  }
  return sum;
}

}  // namespace gpuwatch::sim
