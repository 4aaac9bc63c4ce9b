// Owner spans from the samples (recorder/owner_spans.hpp): one span per process and GPU while
// its owner stays the same from sample to sample.
#include "recorder/owner_spans.hpp"

#include <gtest/gtest.h>

#include "unit/recorder/span_fixture.hpp"

namespace gpuwatch::recorder {
namespace owner_spans_test {  // this test file's helpers (unity builds: no clash with another file's)

using testing::with_processes;

attribution::Attribution job(const std::string& id) {
  attribution::Attribution a;
  a.slurm_job_id = id;
  a.slurm_step = "0";
  a.slurm_user = "alice";
  return a;
}

TEST(OwnerSpans, ASpanGrowsWhileTheOwnerStaysAndIsWrittenOnlyWhenItChanged) {
  OwnerSpans spans;
  spans.observe(with_processes(1000, {{0, 10}, {1, 10}}), {{10, job("42")}});
  auto first = spans.pending();
  ASSERT_EQ(first.size(), 2U);  // one per GPU
  EXPECT_EQ(first[0].gpu_key, "GPU-00000000");
  EXPECT_EQ(first[0].first_ms, 1000);
  EXPECT_EQ(first[0].last_ms, 1000);
  EXPECT_EQ(first[0].owner.slurm_job, "42");
  spans.written();
  EXPECT_TRUE(spans.pending().empty());
  spans.observe(with_processes(2000, {{0, 10}, {1, 10}}), {{10, job("42")}});
  spans.observe(with_processes(3000, {{0, 10}, {1, 10}}), {{10, job("42")}});
  auto grown = spans.pending();
  ASSERT_EQ(grown.size(), 2U);
  EXPECT_EQ(grown[0].first_ms, 1000);  // the same span (the same key in the table): an upsert
  EXPECT_EQ(grown[0].last_ms, 3000);
  EXPECT_EQ(spans.open_spans(), 2U);
}

TEST(OwnerSpans, ANewOwnerOrAGapStartsANewSpanAndTheOldOneIsKeptUntilWritten) {
  OwnerSpans spans;
  spans.observe(with_processes(1000, {{0, 10}}), {{10, attribution::Attribution{}}});  // nothing known yet
  EXPECT_TRUE(spans.pending().empty());
  spans.observe(with_processes(2000, {{0, 10}}), {{10, job("42")}});
  spans.observe(with_processes(3000, {{0, 10}}), {{10, job("43")}});  // the mapping file changed
  auto rows = spans.pending();
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].owner.slurm_job, "42");
  EXPECT_EQ(rows[0].last_ms, 2000);
  EXPECT_EQ(rows[1].owner.slurm_job, "43");
  EXPECT_EQ(rows[1].first_ms, 3000);
  spans.written();
  spans.observe(with_processes(4000, {}), {});  // gone
  EXPECT_EQ(spans.open_spans(), 0U);
  EXPECT_TRUE(spans.pending().empty());  // its end was written already
  spans.observe(with_processes(5000, {{0, 10}}), {{10, job("43")}});
  rows = spans.pending();
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].first_ms, 5000);  // back after a gap: a new span
}

TEST(OwnerSpans, ProcessesWithoutAnAttributionAreNotStored) {
  OwnerSpans spans;
  spans.observe(with_processes(1000, {{0, 10}, {1, 11}}), {{10, job("42")}});
  auto rows = spans.pending();
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].pid, 10U);
}

TEST(OwnerSpans, TheStoredOwnerKeepsEveryMemberAndItsAbsence) {
  attribution::Attribution a;
  a.runtime = attribution::Runtime::Containerd;
  a.container_id = "abc";
  a.pod_namespace = "ml";
  a.pod_name = "trainer-0";
  a.pod_container = "main";
  auto o = stored_owner(a);
  EXPECT_EQ(o.runtime, "containerd");
  EXPECT_EQ(o.container_id, "abc");
  EXPECT_EQ(o.pod_name, "trainer-0");
  EXPECT_FALSE(o.container_name);
  EXPECT_FALSE(o.slurm_job);
  EXPECT_TRUE(stored_owner(attribution::Attribution{}).empty());
}

}  // namespace owner_spans_test
}  // namespace gpuwatch::recorder
