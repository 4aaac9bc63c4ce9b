#include "sampler/ticker.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace gpuwatch::sampler {
namespace {

TEST(Ticker, TickerStaysOnItsGridWhenWorkTakesTime) {
  using namespace std::chrono;
  const steady_clock::time_point t0{};
  const auto period = duration_cast<steady_clock::duration>(milliseconds(20));
  // A sample that took 5 ms: the next tick is still t0 + 20 ms, not 25 ms.
  EXPECT_EQ(Ticker::next_tick(t0 + period, t0 + milliseconds(5), period), t0 + period);
  // Waking exactly on a tick: sleep to the following one.
  EXPECT_EQ(Ticker::next_tick(t0 + period, t0 + period, period), t0 + 2 * period);
  // A sample that overran two ticks (45 ms): skip them, stay on the grid at 60 ms.
  EXPECT_EQ(Ticker::next_tick(t0 + period, t0 + milliseconds(45), period), t0 + 3 * period);
}

TEST(Ticker, TickerWaitsAtLeastOnePeriod) {
  using namespace std::chrono;
  auto start = steady_clock::now();
  Ticker ticker(milliseconds(20));
  ticker.wait();
  ticker.wait();
  // Only a lower bound: an upper bound on wall time would be flaky on a loaded machine.
  EXPECT_GE(duration_cast<milliseconds>(steady_clock::now() - start).count(), 40);
}

}  // namespace
}  // namespace gpuwatch::sampler
