// issue 16: record's hand-off from the per-GPU collector threads.
#include "recorder/sample_queue.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::recorder {
namespace sample_queue_test {  // this test file's helpers (unity builds: no clash with another file's)

using namespace std::chrono_literals;
using SystemClock = std::chrono::system_clock;

core::DeviceSnapshot device(unsigned index) {
  core::DeviceSnapshot d;
  d.index = index;
  return d;
}

TEST(SampleQueue, GroupsTheGpusOfOneTickAndKeepsTheRecentOnes) {
  SampleQueue queue;
  const auto t0 = SystemClock::time_point(1'000'000ms);
  queue.push(device(1), t0 + 3ms);
  queue.push(device(0), t0);
  queue.push(device(0), t0 + 1000ms);  // the next tick; GPU 1 hangs and never pushes it
  queue.push(device(0), t0 + 2000ms);  // not yet due
  auto ticks = queue.take(t0 + 1500ms, 500ms);
  ASSERT_EQ(ticks.size(), 2u);
  ASSERT_EQ(ticks[0].devices.size(), 2u);
  EXPECT_EQ(ticks[0].devices[0].index, 0u);
  EXPECT_EQ(ticks[0].devices[1].index, 1u);
  EXPECT_EQ(ticks[0].timestamp, t0);
  ASSERT_EQ(ticks[1].devices.size(), 1u);  // the healthy GPU alone: a row all the same
  EXPECT_EQ(ticks[1].timestamp, t0 + 1000ms);
  auto rest = queue.take(std::nullopt, 500ms);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].timestamp, t0 + 2000ms);
  EXPECT_TRUE(queue.take(std::nullopt, 500ms).empty());
}

TEST(SampleQueue, DropsTheOldestBeyondItsBound) {
  SampleQueue queue(2);
  const auto t0 = SystemClock::time_point(1'000'000ms);
  for (int i = 0; i < 3; ++i) queue.push(device(0), t0 + i * 1000ms);
  EXPECT_EQ(queue.dropped(), 1u);
  auto ticks = queue.take(std::nullopt, 500ms);
  ASSERT_EQ(ticks.size(), 2u);
  EXPECT_EQ(ticks[0].timestamp, t0 + 1000ms);
}

}  // namespace sample_queue_test
}  // namespace gpuwatch::recorder
