#include "live/diagnosis_input.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::live {
namespace {

TEST(DiagnosisInput, LeavesOutAGpuWithNoSampleAndMarksTheStaleOne) {
  core::Snapshot latest;
  latest.device_count = 3;
  latest.driver_version = "550.90.07";
  latest.devices.resize(3);
  for (unsigned i = 0; i < 3; ++i) latest.devices[i].index = i;
  const auto input = make_diagnosis_input(latest, {0.5, std::nullopt, 9.0}, 5.0, {XidCount{2, 79, 1, 0}});
  EXPECT_EQ(input.snapshot.device_count, 3u);
  EXPECT_EQ(input.snapshot.driver_version, "550.90.07");
  ASSERT_EQ(input.snapshot.devices.size(), 2u);  // GPU 1 never answered: no sample, never zeros
  EXPECT_EQ(input.snapshot.devices[0].index, 0u);
  EXPECT_EQ(input.snapshot.devices[1].index, 2u);
  ASSERT_EQ(input.freshness.size(), 3u);  // every GPU, in index order
  EXPECT_TRUE(input.freshness[0].has_sample);
  EXPECT_FALSE(input.freshness[0].stale);
  EXPECT_FALSE(input.freshness[1].has_sample);
  EXPECT_EQ(input.freshness[1].index, 1u);
  EXPECT_TRUE(input.freshness[2].stale);
  EXPECT_DOUBLE_EQ(input.freshness[2].age_s, 9.0);
  ASSERT_EQ(input.xids.size(), 1u);
  EXPECT_EQ(input.xids[0].xid, 79u);
}

}  // namespace
}  // namespace gpuwatch::live
