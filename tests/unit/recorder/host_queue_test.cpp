#include "recorder/host_queue.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::recorder {
namespace host_queue_test {  // this test file's helpers (unity builds)

using std::chrono::milliseconds;

std::chrono::system_clock::time_point at(long long ms) {
  return std::chrono::system_clock::time_point(milliseconds(ms));
}

HostQueue::Sample host_at(long long ms) {
  auto sample = std::make_shared<host_signals::HostSample>();
  sample->timestamp = at(ms);
  sample->cpu_busy_percent = static_cast<double>(ms);
  return sample;
}

TEST(HostQueue, EachTickTakesTheNearestSampleOnce) {
  HostQueue queue;
  for (long long ms : {990, 2010, 2995, 4003}) queue.push(host_at(ms));
  auto first = queue.take_for(at(1000), milliseconds(500));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->timestamp, at(990));
  EXPECT_FALSE(queue.take_for(at(1000), milliseconds(500)));  // taken already
  auto third = queue.take_for(at(3000), milliseconds(500));   // the tick at 2000 was not written (a hung GPU)
  ASSERT_TRUE(third);
  EXPECT_EQ(third->timestamp, at(2995));
  EXPECT_FALSE(queue.take_for(at(2000), milliseconds(500)));  // 2010 went with the tick after it
  auto fourth = queue.take_for(at(4000), milliseconds(500));
  ASSERT_TRUE(fourth);
  EXPECT_EQ(fourth->timestamp, at(4003));
}

TEST(HostQueue, NoSampleNearATickGivesNone) {
  HostQueue queue;
  queue.push(host_at(1000));
  EXPECT_FALSE(queue.take_for(at(5000), milliseconds(500)));  // the host thread was off or late
  queue.push(host_at(9000));
  EXPECT_FALSE(queue.take_for(at(6000), milliseconds(500)));
  auto later = queue.take_for(at(9100), milliseconds(500));
  ASSERT_TRUE(later);
  EXPECT_EQ(later->timestamp, at(9000));
}

TEST(HostQueue, IsBounded) {
  HostQueue queue(2);
  for (long long ms : {1000, 2000, 3000}) queue.push(host_at(ms));
  EXPECT_FALSE(queue.take_for(at(1000), milliseconds(100)));  // the oldest went
  EXPECT_TRUE(queue.take_for(at(2000), milliseconds(100)));
}

}  // namespace host_queue_test
}  // namespace gpuwatch::recorder
