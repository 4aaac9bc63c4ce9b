#include "tui/history.hpp"

#include <gtest/gtest.h>

#include "tui_fixture.hpp"

namespace gpuwatch::tui {
namespace {

TEST(History, KeepsTheLastCapacityPointsPerGpuWithGapsWhenNotUp) {
  History h(3);
  Model m = test::demo_model(2);
  for (int i = 0; i < 5; ++i) {
    m.gpus[0].utilization_ratio = 0.1 * i;
    h.push(m);
  }
  m.gpus[1].health = GpuHealth::Stale;
  h.push(m);
  const GpuHistory* g0 = h.find("", 0);
  ASSERT_NE(g0, nullptr);
  ASSERT_EQ(g0->utilization.size(), 3u);
  EXPECT_DOUBLE_EQ(*g0->utilization[0], 0.3);
  EXPECT_DOUBLE_EQ(*g0->utilization[1], 0.4);
  const GpuHistory* g1 = h.find("", 1);
  EXPECT_FALSE(g1->utilization.back().has_value());  // stale: a gap, not the old value again
  EXPECT_NEAR(*g1->power[0], 588.0 / 700.0, 1e-9);
  EXPECT_EQ(h.find("remote", 0), nullptr);
  EXPECT_EQ(last_points(g0->utilization, 2).size(), 2u);
  EXPECT_EQ(last_points(g0->utilization, 10).size(), 3u);
}

}  // namespace
}  // namespace gpuwatch::tui
