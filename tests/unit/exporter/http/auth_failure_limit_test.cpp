#include "exporter/http/auth_failure_limit.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpuwatch::exporter {
namespace auth_failure_limit_test {  // this test file's helpers (unity builds)

using namespace std::chrono_literals;
const AuthFailureLimit::Clock::time_point kStart{1000s};

TEST(AuthFailureLimit, BlocksAnAddressAfterItsFailuresUntilTheWindowEnds) {
  AuthFailureLimit limit(3, 60s);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(limit.blocked_for("10.0.0.1", kStart + std::chrono::seconds(i))) << i;
    limit.record_failure("10.0.0.1", kStart + std::chrono::seconds(i));
  }
  auto wait = limit.blocked_for("10.0.0.1", kStart + 10s);
  ASSERT_TRUE(wait);
  EXPECT_EQ(*wait, 50s) << "the rest of the window that began with the first failure";
  EXPECT_FALSE(limit.blocked_for("10.0.0.2", kStart + 10s)) << "other addresses are not affected";
  EXPECT_FALSE(limit.blocked_for("10.0.0.1", kStart + 60s)) << "a new window";
  limit.record_failure("10.0.0.1", kStart + 61s);
  EXPECT_FALSE(limit.blocked_for("10.0.0.1", kStart + 62s)) << "the count started over";
}

TEST(AuthFailureLimit, DefaultsAreTheDocumentedOnes) {
  AuthFailureLimit limit;
  for (std::size_t i = 0; i < AuthFailureLimit::kMaxFailures; ++i) limit.record_failure("::1", kStart);
  auto wait = limit.blocked_for("::1", kStart + 1ms);
  ASSERT_TRUE(wait);
  EXPECT_EQ(*wait, 60s);
  EXPECT_EQ(AuthFailureLimit::kMaxFailures, 30u);
}

TEST(AuthFailureLimit, RemembersABoundedNumberOfAddresses) {
  AuthFailureLimit limit(1, 600s, /*max_sources=*/4);
  for (int i = 0; i < 100; ++i) limit.record_failure("10.0.1." + std::to_string(i), kStart + std::chrono::seconds(i));
  EXPECT_LE(limit.sources(), 4u);
  EXPECT_TRUE(limit.blocked_for("10.0.1.99", kStart + 100s)) << "the newest addresses are kept";
  EXPECT_FALSE(limit.blocked_for("10.0.1.0", kStart + 100s)) << "the oldest is forgotten";
}

}  // namespace auth_failure_limit_test
}  // namespace gpuwatch::exporter
