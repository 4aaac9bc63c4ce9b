#include "notify/retry_policy.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::notify {
namespace {

using std::chrono::milliseconds;

TEST(NotifyRetryPolicy, BackoffDoublesUpToTheCap) {
  const RetryPolicy policy;
  EXPECT_EQ(backoff_delay(1, policy), milliseconds(1000));
  EXPECT_EQ(backoff_delay(2, policy), milliseconds(2000));
  EXPECT_EQ(backoff_delay(3, policy), milliseconds(4000));
  EXPECT_EQ(backoff_delay(9, policy), milliseconds(256000));
  EXPECT_EQ(backoff_delay(10, policy), milliseconds(300000));  // capped at 5 minutes
  EXPECT_EQ(backoff_delay(1000, policy), milliseconds(300000));
  EXPECT_EQ(backoff_delay(0, policy), milliseconds(1000));
}

TEST(NotifyRetryPolicy, GivesUpAfterADay) {
  const RetryPolicy policy;
  EXPECT_FALSE(should_give_up(0, 24 * 3600 * 1000 - 1, policy));
  EXPECT_TRUE(should_give_up(0, 24 * 3600 * 1000, policy));
  RetryPolicy quick;
  quick.give_up_after = milliseconds(500);
  EXPECT_TRUE(should_give_up(1000, 1500, quick));
}

}  // namespace
}  // namespace gpuwatch::notify
