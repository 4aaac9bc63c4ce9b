#include "live/energy_integrator.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>

namespace gpuwatch::live {
namespace energy_integrator_test {  // this test file's helpers (unity builds: no clash with another file's)

using Clock = EnergyIntegrator::Clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

const Clock::time_point kStart = Clock::time_point{} + std::chrono::hours(1);

TEST(EnergyIntegrator, AbsentUntilAPowerReading) {
  EnergyIntegrator e(seconds(5));
  EXPECT_FALSE(e.joules());
  e.add(kStart, std::nullopt);
  e.add(kStart + seconds(1), std::nullopt);
  EXPECT_FALSE(e.joules());  // no power reading: no estimate, not 0
  e.add(kStart + seconds(2), 100.0);
  ASSERT_TRUE(e.joules());
  EXPECT_EQ(*e.joules(), 0.0);  // starts at 0 with the first reading
}

TEST(EnergyIntegrator, ConstantPowerTenSeconds) {
  EnergyIntegrator e(seconds(5));
  for (int i = 0; i <= 10; ++i) e.add(kStart + seconds(i), 100.0);  // 100 W for 10 s at 1 s
  ASSERT_TRUE(e.joules());
  EXPECT_NEAR(*e.joules(), 1000.0, 10.0);  // 1000 J within 1 %
}

TEST(EnergyIntegrator, TrapezoidsOfARamp) {
  EnergyIntegrator e(seconds(5));
  // 0 W -> 200 W linearly over 4 s sampled every 500 ms: exactly 400 J.
  for (int i = 0; i <= 8; ++i) e.add(kStart + milliseconds(500 * i), 25.0 * i);
  EXPECT_NEAR(*e.joules(), 400.0, 1e-9);
}

TEST(EnergyIntegrator, AGapLongerThanMaxGapIsNotIntegrated) {
  EnergyIntegrator e(seconds(5));
  e.add(kStart, 100.0);
  e.add(kStart + seconds(1), 100.0);                  // 100 J
  e.add(kStart + seconds(61), 100.0);                 // 60 s gap: skipped, a new segment
  e.add(kStart + seconds(62), 100.0);                 // 100 J
  EXPECT_NEAR(*e.joules(), 200.0, 1e-9);
}

TEST(EnergyIntegrator, AMissingReadingOrLostGpuEndsTheSegment) {
  EnergyIntegrator e(seconds(5));
  e.add(kStart, 300.0);
  e.add(kStart + seconds(1), 300.0);          // 300 J
  e.add(kStart + seconds(2), std::nullopt);   // GPU lost / power read failed
  e.add(kStart + seconds(3), 300.0);          // not joined to the reading at 1 s
  e.add(kStart + seconds(4), 300.0);          // 300 J
  EXPECT_NEAR(*e.joules(), 600.0, 1e-9);
  e.add(kStart + seconds(5), std::nullopt);
  EXPECT_NEAR(*e.joules(), 600.0, 1e-9);  // the total is kept while the GPU is gone
}

TEST(EnergyIntegrator, IgnoresNonsenseAndTimeGoingBack) {
  EnergyIntegrator e(seconds(5));
  e.add(kStart, 100.0);
  e.add(kStart + seconds(1), -5.0);   // not a power: ends the segment
  e.add(kStart + seconds(2), 100.0);
  e.add(kStart + seconds(1), 100.0);  // earlier than the previous reading: nothing added
  e.add(kStart + seconds(2), 100.0);  // 100 J
  EXPECT_NEAR(*e.joules(), 100.0, 1e-9);
}

}  // namespace energy_integrator_test
}  // namespace gpuwatch::live
