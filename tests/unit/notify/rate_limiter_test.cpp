#include "notify/rate_limiter.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::notify {
namespace {

TEST(NotifyRateLimiter, AtMostNPerWindowThenTheOldestSlotOpens) {
  RateLimiter limiter(RateLimit{3, std::chrono::seconds(60)});
  EXPECT_EQ(limiter.next_allowed(1000), 1000);
  limiter.record(1000);
  limiter.record(2000);
  limiter.record(5000);
  EXPECT_EQ(limiter.next_allowed(6000), 61000);   // the first of the three leaves the window at 61 s
  EXPECT_EQ(limiter.next_allowed(61000), 61000);
  limiter.record(61000);
  EXPECT_EQ(limiter.next_allowed(61500), 62000);  // then the second
}

TEST(NotifyRateLimiter, NoLimit) {
  RateLimiter limiter(RateLimit{0, std::chrono::seconds(1)});
  for (int i = 0; i < 100; ++i) limiter.record(i);
  EXPECT_EQ(limiter.next_allowed(100), 100);
}

}  // namespace
}  // namespace gpuwatch::notify
