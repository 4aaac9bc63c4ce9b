#include "history/owner_energy.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::history {
namespace owner_energy_test {

store::OwnerSpanRow span(const std::string& key, unsigned index, std::uint32_t pid, std::int64_t first, std::int64_t last) {
  store::OwnerSpanRow row;
  row.gpu_key = key;
  row.gpu_uuid = key;
  row.gpu_index = index;
  row.pid = pid;
  row.first_ms = first;
  row.last_ms = last;
  return row;
}

TEST(OwnerEnergyIntervals, MergeOverlappingSpansPerGpuAndKeepGapsApart) {
  const auto intervals = owner_intervals({span("GPU-b", 1, 11, 100, 200), span("GPU-a", 0, 10, 100, 300),
                                          span("GPU-a", 0, 12, 250, 400),   // overlaps the first: one interval
                                          span("GPU-a", 0, 13, 900, 1000)});  // after a gap: its own
  ASSERT_EQ(intervals.size(), 3u);
  EXPECT_EQ(intervals[0].gpu_index, 0u);
  EXPECT_EQ(intervals[0].first_ms, 100);
  EXPECT_EQ(intervals[0].last_ms, 400);
  EXPECT_EQ(intervals[1].gpu_index, 0u);
  EXPECT_EQ(intervals[1].first_ms, 900);
  EXPECT_EQ(intervals[2].gpu_index, 1u);
  EXPECT_EQ(intervals[2].last_ms, 200);
}

TEST(OwnerEnergyIntervals, NoSpansNoIntervals) { EXPECT_TRUE(owner_intervals({}).empty()); }

}  // namespace owner_energy_test
}  // namespace gpuwatch::history
