#include "attribution/attribution.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::attribution {
namespace {

TEST(AttributionSummary, PodThenJobThenContainer) {
  Attribution a;
  EXPECT_EQ(a.summary(), "-");
  a.runtime = Runtime::Docker;
  a.container_id = "3f4e8c2b9a1d7e6f5c4b";
  EXPECT_EQ(a.summary(), "docker 3f4e8c2b9a1d");
  a.container_name = "trainer";
  EXPECT_EQ(a.summary(), "docker trainer");
  a.slurm_job_id = "77";
  EXPECT_EQ(a.summary(), "job 77");
  a.slurm_step = "batch";
  EXPECT_EQ(a.summary(), "job 77.batch");
  a.pod_uid = "6b2d54a1-8f3c";
  EXPECT_EQ(a.summary(), "job 77.batch");
  a.pod_name = "p";
  EXPECT_EQ(a.summary(), "pod p");
  Attribution b;
  merge_into(b, a);
  EXPECT_EQ(b, a);
  Attribution c;
  c.pod_name = "mine";
  merge_into(c, a);
  EXPECT_EQ(c.pod_name, "mine");  // the target's own values win
  EXPECT_EQ(c.slurm_job_id, "77");
}

}  // namespace
}  // namespace gpuwatch::attribution
