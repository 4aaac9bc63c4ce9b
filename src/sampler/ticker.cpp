#include "sampler/ticker.hpp"

#include <thread>

namespace gpuwatch::sampler {

Ticker::Ticker(std::chrono::duration<double> period)
    : period_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(period)),
      next_(std::chrono::steady_clock::now() + period_) {}

std::chrono::steady_clock::time_point Ticker::next_tick(std::chrono::steady_clock::time_point next,
                                                        std::chrono::steady_clock::time_point now,
                                                        std::chrono::steady_clock::duration period) {
  while (next <= now) next += period;  // skip ticks that a slow sample missed
  return next;
}

void Ticker::wait() {
  next_ = next_tick(next_, std::chrono::steady_clock::now(), period_);
  std::this_thread::sleep_until(next_);
}

}  // namespace gpuwatch::sampler
