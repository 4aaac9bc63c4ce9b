// track_spin: the per-GPU half of collective_hang's shape. A GPU's working level is the EWMA of
// its power / limit while busy; a spin run opens at a sample with utilization pinned and power at
// most kSpinPowerDrop x that level, taken straight from work (the last busy sample within
// kSpinFromWorkS). A GPU that was pinned at low power from the start never switched: no run. A run
// ends at a busy sample back at the working level, or after kSpinBreakS without a spinning one.
#include <algorithm>
#include <cmath>

#include "diagnose/gpu_state.hpp"

namespace gpuwatch::diagnose {

double SpinRun::power_std() const {
  if (n < 2) return 0;
  const double mean = power_sum / n;
  return std::sqrt(std::max(0.0, power_sq_sum / n - mean * mean));
}

void track_spin(GpuState& st) {
  using namespace thresholds;
  const GpuSample& s = st.sample;
  SpinRun& run = st.spin;
  const auto power = s.power_ratio();
  if (!s.util || !power) {
    // Nothing to judge: an open run ends only by its break time.
    if (run.open() && s.t_s - run.last_s > kSpinBreakS) run.since_s = kNever;
    return;
  }
  const bool level_known = run.work_samples >= kWorkLevelMinSamples;
  const double level = run.open() ? run.from_power_ratio : run.work_power_ratio;
  const bool spinning = level_known && *s.util >= kPinnedUtil && *power <= kSpinPowerDrop * level &&
                        *power <= kSpinMaxPowerRatio;
  if (spinning) {
    if (!run.open()) {
      if (s.t_s - run.last_work_s > kSpinFromWorkS) return;  // after a pause, not a switch
      run = SpinRun{run.work_power_ratio, run.work_samples, run.last_work_s, s.t_s, s.t_s, run.work_power_ratio};
    }
    run.last_s = s.t_s;
    run.n += 1;
    run.power_sum += *power;
    run.power_sq_sum += *power * *power;
    if (s.mem_util) {
      run.mem_n += 1;
      run.mem_sum += *s.mem_util;
    }
    return;
  }
  if (run.open()) {
    // Back at work (busy at its working power): the pinned low-power samples were the ramps of a
    // periodic stall (the first sample after a job's synchronised dip), not a spin. Anything else
    // (idle, a stray reading) is a glitch inside the run.
    const bool working = *s.util >= kBusyUtil && *power > kSpinPowerDrop * run.from_power_ratio;
    if (!working && s.t_s - run.last_s <= kSpinBreakS) return;
    run.since_s = kNever;
  }
  if (*s.util < kBusyUtil) return;
  const double dt = st.have_prev ? s.t_s - st.prev_t_s : 0;
  const double alpha = run.work_samples == 0 ? 1.0 : std::clamp(dt / kWorkLevelTauS, 0.02, 1.0);
  run.work_power_ratio += (*power - run.work_power_ratio) * alpha;
  run.work_samples = std::min(run.work_samples + 1, 1 << 20);
  run.last_work_s = s.t_s;
}

}  // namespace gpuwatch::diagnose
