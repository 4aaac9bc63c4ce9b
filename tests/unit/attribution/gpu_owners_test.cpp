#include "attribution/gpu_owners.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::attribution {
namespace {

TEST(GpuOwners, PodsAndJobsJoinedSorted) {
  PodResourceList shared = {{"b-0", "ns2", "c", "nvidia.com/gpu", {"GPU-aaa::0"}},
                            {"a-0", "ns1", "c", "nvidia.com/gpu", {"GPU-aaa::1"}}};
  JobMapping jobs = {{"0", {"12"}}};
  Attribution process;
  process.slurm_job_id = "11";
  auto owners = owners_of_gpu("0", "GPU-aaa", shared, jobs, {process, process});
  auto labels = owner_labels(owners);
  EXPECT_EQ(labels.pod, "a-0,b-0");
  EXPECT_EQ(labels.pod_namespace, "ns1,ns2");
  EXPECT_EQ(labels.container, "c");
  EXPECT_EQ(labels.hpc_job, "11,12");
  auto none = owner_labels(owners_of_gpu("1", "GPU-bbb", shared, jobs, {}));
  EXPECT_EQ(none.pod, "");
  EXPECT_EQ(none.hpc_job, "");
}

}  // namespace
}  // namespace gpuwatch::attribution
