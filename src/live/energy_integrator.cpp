#include "live/energy_integrator.hpp"

#include <cmath>

namespace gpuwatch::live {

void EnergyIntegrator::add(Clock::time_point at, std::optional<double> power_watts) {
  if (!power_watts || !std::isfinite(*power_watts) || *power_watts < 0) {
    last_at_.reset();  // the segment ends here
    return;
  }
  if (!joules_) joules_ = 0.0;
  if (last_at_ && at > *last_at_ && at - *last_at_ <= max_gap_) {
    const double seconds = std::chrono::duration<double>(at - *last_at_).count();
    *joules_ += (last_watts_ + *power_watts) / 2 * seconds;
  }
  last_at_ = at;
  last_watts_ = *power_watts;
}

}  // namespace gpuwatch::live
