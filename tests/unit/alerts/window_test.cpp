#include "alerts/window.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::alerts {
namespace {

TEST(AlertsWindow, ClosedIntervalLikeAPrometheusRange) {
  Window w(WindowSpec{WindowFn::Avg, 60, 0});
  w.push(0, 10.0);
  w.push(30, 20.0);
  w.push(60, 30.0);  // [0, 60]: the sample at 0 is still in
  EXPECT_EQ(w.value(60), 20.0);
  EXPECT_EQ(w.size(), 3u);
  w.push(61, std::nullopt);  // absent: not a sample, but the one at 0 leaves
  EXPECT_EQ(w.size(), 2u);
  EXPECT_EQ(w.value(61), 25.0);
  w.push(200, std::nullopt);
  EXPECT_EQ(w.size(), 0u);
  EXPECT_EQ(w.value(200), std::nullopt);
}

TEST(AlertsWindow, MinMaxFollowEviction) {
  Window mx(WindowSpec{WindowFn::Max, 10, 0}), mn(WindowSpec{WindowFn::Min, 10, 0});
  const double xs[] = {5, 9, 3, 7, 1, 8};
  for (int i = 0; i < 6; ++i) {
    mx.push(i * 5.0, xs[i]);
    mn.push(i * 5.0, xs[i]);
  }
  // window [15, 25]: 7, 1, 8
  EXPECT_EQ(mx.value(25), 8.0);
  EXPECT_EQ(mn.value(25), 1.0);
}

TEST(AlertsWindow, PredictLooksAheadFromNow) {
  Window p(WindowSpec{WindowFn::Predict, 600, 3600});
  for (int t = 0; t <= 600; t += 60) p.push(t, 100.0 + 2.0 * t);
  EXPECT_DOUBLE_EQ(*p.value(600), 100.0 + 2.0 * (600 + 3600));
  Window flat(WindowSpec{WindowFn::Trend, 600, 0});
  flat.push(5, 1.0);
  flat.push(5, 2.0);  // two samples at one time: no slope
  EXPECT_EQ(flat.value(5), std::nullopt);
}

TEST(AlertsWindow, GrowsPastItsFirstCapacity) {
  Window w(WindowSpec{WindowFn::Increase, 1e9, 0});
  for (int i = 0; i < 5000; ++i) w.push(i, static_cast<double>(i));
  EXPECT_EQ(w.size(), 5000u);
  EXPECT_EQ(w.value(4999), 4999.0);
}

}  // namespace
}  // namespace gpuwatch::alerts
