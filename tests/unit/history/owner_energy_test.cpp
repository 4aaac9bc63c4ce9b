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

store::OwnerSpanRow job_span(const std::string& job, std::uint32_t pid, std::int64_t first, std::int64_t last) {
  auto row = span("GPU-a", 0, pid, first, last);
  row.owner.slurm_job = job;
  return row;
}

TEST(OwnerEnergyShare, OwnersAtCountsTheOwnerAndEachOtherOwnerOnceWhileTheirSpansCoverTheTime) {
  const std::set<std::string> own{"slurm:1"};
  std::vector<store::OwnerSpanRow> spans{job_span("1", 10, 0, 1000), job_span("1", 11, 0, 1000),  // its own two processes
                                         job_span("2", 20, 200, 600), job_span("2", 21, 300, 400),  // another job, two processes
                                         job_span("3", 30, 500, 900)};
  EXPECT_EQ(owners_at(spans, own, 100), 1u);  // alone
  EXPECT_EQ(owners_at(spans, own, 350), 2u);  // job 2 once, not once per process
  EXPECT_EQ(owners_at(spans, own, 550), 3u);
  EXPECT_EQ(owners_at(spans, own, 950), 1u);
  EXPECT_EQ(owners_at({}, own, 5), 1u);  // no spans recorded there: counted whole
  auto pod = span("GPU-a", 0, 40, 0, 1000);
  pod.owner.pod_uid = "uid-1";
  auto bare = span("GPU-a", 0, 41, 0, 1000);  // an owner without job or pod: its process
  bare.owner.container_id = std::nullopt;
  EXPECT_EQ(owners_at({pod, bare}, own, 10), 3u);
}

TEST(OwnerEnergyShare, SharedGpusAreSaidInTextAndJson) {
  EXPECT_EQ(shared_gpus_text({}), "");
  const std::vector<SharedGpu> shared{{3, 720, 2}};
  EXPECT_EQ(shared_gpus_text(shared), "  GPU 3 was shared with other owners for 720 s (up to 2 at once): its energy then is split "
                                      "evenly between them (no per-process utilization is recorded)\n");
  EXPECT_EQ(shared_gpus_json(shared), nlohmann::json::parse(R"([{"gpu":3,"seconds":720.0,"most_owners":2}])"));
}

}  // namespace owner_energy_test
}  // namespace gpuwatch::history
