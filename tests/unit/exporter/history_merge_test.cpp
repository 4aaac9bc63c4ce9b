#include "exporter/history_merge.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace gpuwatch::exporter {
namespace history_merge_test {  // this test file's helpers (unity builds: no clash with another file's)

live::HistoryRow row(unsigned gpu, double t) {
  live::HistoryRow r;
  r.gpu = gpu;
  r.timestamp_s = t;
  r.up = true;
  r.values.fill(std::nan(""));
  return r;
}

std::vector<std::pair<unsigned, double>> shape(const std::vector<live::HistoryRow>& rows) {
  std::vector<std::pair<unsigned, double>> out;
  for (const auto& r : rows) out.emplace_back(r.gpu, r.timestamp_s);
  return out;
}

TEST(HistoryMerge, TheRingReachesTheWindowOnlyWhenEveryGpuHasARowNearItsStart) {
  const std::vector<live::HistoryRow> full = {row(0, 100.4), row(0, 101.4), row(1, 100.6), row(1, 101.6)};
  EXPECT_TRUE(ring_reaches(full, {0, 1}, 100.0, 1.5));
  // Started at 140.2: a window from 100 is not in memory.
  const std::vector<live::HistoryRow> fresh = {row(0, 140.2), row(1, 140.3)};
  EXPECT_FALSE(ring_reaches(fresh, {0, 1}, 100.0, 1.5));
  EXPECT_TRUE(ring_reaches(fresh, {0, 1}, 139.0, 1.5));
  // A GPU with no row at all (not sampled yet): not reached.
  EXPECT_FALSE(ring_reaches({row(0, 100.1)}, {0, 1}, 100.0, 1.5));
  EXPECT_TRUE(ring_reaches({row(0, 100.1)}, {0}, 100.0, 1.5));
}

TEST(HistoryMerge, StoredRowsComeBeforeEachGpusFirstLiveRow) {
  // The store has 1 s buckets 100..103 of both GPUs (the last ones hold the ring's own samples,
  // flushed); the ring starts at 102.5 on GPU 0 and 103.5 on GPU 1; GPU 2 has only stored rows.
  const std::vector<live::HistoryRow> stored = {row(0, 100), row(0, 101), row(0, 102), row(0, 103),
                                          row(1, 100), row(1, 101), row(1, 102), row(1, 103), row(2, 100)};
  const std::vector<live::HistoryRow> live = {row(0, 102.5), row(0, 103.5), row(1, 103.5)};
  const auto joined = stored_then_live(stored, 1.0, live);
  const std::vector<std::pair<unsigned, double>> expected = {
      {0, 100}, {0, 101}, {0, 102.5}, {0, 103.5},  // bucket 102 holds 102.5: the ring's
      {1, 100}, {1, 101}, {1, 102}, {1, 103.5}, {2, 100}};
  EXPECT_EQ(shape(joined), expected);
  // Nothing stored before the ring: the ring's rows alone.
  EXPECT_EQ(shape(stored_then_live({row(0, 102)}, 1.0, live)), shape(live));
}

}  // namespace history_merge_test
}  // namespace gpuwatch::exporter
