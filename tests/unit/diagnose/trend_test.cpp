#include "diagnose/trend.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "diagnose/sliding_sums.hpp"

namespace gpuwatch::diagnose {
namespace {

TEST(DiagnoseTrend, LineSlopeAndHalvesOverASlidingWindow) {
  Trend tr(100);
  for (int t = 0; t < 500; ++t) tr.push(1.7e9 + t, 3.0 * t + 5);  // far epoch: precision kept by rebasing
  auto f = tr.fit();
  ASSERT_TRUE(f);
  EXPECT_NEAR(f->slope_per_s, 3.0, 1e-6);
  EXPECT_NEAR(f->r2, 1.0, 1e-9);
  EXPECT_NEAR(f->covered_s, 100, 1e-9);
  EXPECT_NEAR(*f->older_half_slope, 3.0, 1e-6);
  EXPECT_NEAR(*f->recent_half_slope, 3.0, 1e-6);
}

TEST(DiagnoseTrend, SaturatingGrowthDecelerates) {
  Trend tr(300);
  for (int t = 0; t < 300; ++t) tr.push(t, 1e10 * (1 - std::exp(-t / 100.0)));
  auto f = tr.fit();
  ASSERT_TRUE(f);
  EXPECT_LT(*f->recent_half_slope, 0.7 * *f->older_half_slope);
}

TEST(DiagnoseSlidingSums, EvictsOldSamples) {
  SlidingSums<2> w(10);
  for (int t = 0; t < 100; ++t) w.push(t, {1.0, static_cast<double>(t)});
  EXPECT_EQ(w.size(), 11u);
  EXPECT_DOUBLE_EQ(w.sum(0), 11);
  EXPECT_DOUBLE_EQ(w.sum(1), 89 + 90 + 91 + 92 + 93 + 94 + 95 + 96 + 97 + 98 + 99);
  EXPECT_DOUBLE_EQ(w.covered_s(), 10);
}

}  // namespace
}  // namespace gpuwatch::diagnose
