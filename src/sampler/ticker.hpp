#pragma once
// A fixed-rate tick that does not drift: what the scrolling and redrawing commands
// (status -i, dmon, pmon) sample on.
#include <chrono>

namespace gpuwatch::sampler {

// Sleeps until the next multiple of PERIOD after the start (not PERIOD after the
// end of the previous sample, so slow samples do not make the rate drift).
class Ticker {
 public:
  explicit Ticker(std::chrono::duration<double> period);
  void wait();

  // The tick to sleep until: the first one after NOW on the grid NEXT + k * PERIOD,
  // so that a slow sample skips ticks instead of shifting every later one.
  static std::chrono::steady_clock::time_point next_tick(std::chrono::steady_clock::time_point next,
                                                         std::chrono::steady_clock::time_point now,
                                                         std::chrono::steady_clock::duration period);

 private:
  std::chrono::steady_clock::duration period_;
  std::chrono::steady_clock::time_point next_;
};

}  // namespace gpuwatch::sampler
