#include "exporter/metrics_cache.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace gpuwatch::exporter {
namespace {

using std::chrono::milliseconds;

TEST(MetricsReuseWindow, ATenthOfTheIntervalAtMost50Ms) {
  EXPECT_EQ(metrics_reuse_window(milliseconds(1000)), milliseconds(50));
  EXPECT_EQ(metrics_reuse_window(milliseconds(200)), milliseconds(20));
  EXPECT_EQ(metrics_reuse_window(milliseconds(5)), milliseconds(0));
  EXPECT_EQ(metrics_reuse_window(milliseconds(60000)), milliseconds(50));
}

TEST(MetricsBodyCache, ReusesOneEncodingWithinTheWindowOnly) {
  MetricsBodyCache cache(milliseconds(50));
  int encodes = 0;
  auto encode = [&](std::string& out) { out = "body " + std::to_string(++encodes); };
  const auto t0 = MetricsBodyCache::Clock::now();
  auto first = cache.get(t0, encode);
  EXPECT_EQ(*first, "body 1");
  EXPECT_EQ(*cache.get(t0 + milliseconds(49), encode), "body 1");
  auto later = cache.get(t0 + milliseconds(50), encode);  // the window is over
  EXPECT_EQ(*later, "body 2");
  EXPECT_EQ(*first, "body 1");  // a body handed out stays intact
  EXPECT_EQ(*cache.get(t0 + milliseconds(60), encode), "body 2");
  EXPECT_EQ(encodes, 2);
}

TEST(MetricsBodyCache, ZeroWindowEncodesEveryTime) {
  MetricsBodyCache cache(milliseconds(0));
  int encodes = 0;
  auto encode = [&](std::string& out) { out = std::to_string(++encodes); };
  const auto t0 = MetricsBodyCache::Clock::now();
  cache.get(t0, encode);
  cache.get(t0, encode);
  EXPECT_EQ(encodes, 2);
}

TEST(MetricsBodyCache, AClockGoingBackDoesNotServeAnOldBodyForever) {
  MetricsBodyCache cache(milliseconds(50));
  int encodes = 0;
  auto encode = [&](std::string& out) { out = std::to_string(++encodes); };
  const auto t0 = MetricsBodyCache::Clock::now();
  cache.get(t0, encode);
  EXPECT_EQ(*cache.get(t0 - milliseconds(10), encode), "2");
}

TEST(MetricsBodyCache, ConcurrentScrapesShareOneEncoding) {
  MetricsBodyCache cache(milliseconds(50));
  std::atomic<int> encodes{0};
  const auto now = MetricsBodyCache::Clock::now();
  std::vector<std::thread> scrapers;
  std::atomic<int> right{0};
  for (int i = 0; i < 8; ++i) {
    scrapers.emplace_back([&] {
      auto body = cache.get(now, [&](std::string& out) {
        ++encodes;
        std::this_thread::sleep_for(milliseconds(5));  // the others arrive meanwhile
        out = "metrics";
      });
      if (*body == "metrics") ++right;
    });
  }
  for (auto& t : scrapers) t.join();
  EXPECT_EQ(encodes.load(), 1);
  EXPECT_EQ(right.load(), 8);
}

}  // namespace
}  // namespace gpuwatch::exporter
