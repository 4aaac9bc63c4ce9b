#include "attribution/pod_resources.hpp"

#include <gtest/gtest.h>


namespace gpuwatch::attribution {
namespace {

PodResourceList two_pods() {
  return {{"trainer-0", "ml", "pytorch", "nvidia.com/gpu", {"GPU-aaa", "GPU-bbb"}},
          {"infer-7", "serving", "triton", "nvidia.com/gpu", {"GPU-ccc"}}};
}

TEST(PodResources, ReplicaSuffixIsStripped) {
  EXPECT_EQ(physical_device_id("GPU-aaa::3"), "GPU-aaa");
  EXPECT_EQ(physical_device_id("GPU-aaa"), "GPU-aaa");
}

TEST(PodResources, MatchesByTheGpuNvmlReported) {
  auto match = match_process(two_pods(), {"GPU-ccc"}, {});
  ASSERT_TRUE(match);
  EXPECT_EQ(match->pod_name, "infer-7");
  EXPECT_EQ(match->pod_namespace, "serving");
  EXPECT_EQ(match->container_name, "triton");
  EXPECT_FALSE(match_process(two_pods(), {"GPU-zzz"}, {}));
}

TEST(PodResources, MatchesByVisibleDevices) {
  EnvironFacts env;
  env.visible_devices = {"GPU-bbb"};
  auto match = match_process(two_pods(), {}, env);
  ASSERT_TRUE(match);
  EXPECT_EQ(match->pod_name, "trainer-0");
}

TEST(PodResources, TimeSlicedGpuNeedsTheHostnameToChoose) {
  PodResourceList shared = {{"a-0", "ns", "c", "nvidia.com/gpu", {"GPU-aaa::0"}},
                            {"b-0", "ns", "c", "nvidia.com/gpu", {"GPU-aaa::1"}}};
  EXPECT_FALSE(match_process(shared, {"GPU-aaa"}, {}));  // no guess
  EnvironFacts env;
  env.hostname = "b-0";
  auto match = match_process(shared, {"GPU-aaa"}, env);
  ASSERT_TRUE(match);
  EXPECT_EQ(match->pod_name, "b-0");
  EXPECT_EQ(holders_of(shared, "GPU-aaa").size(), 2u);
}

}  // namespace
}  // namespace gpuwatch::attribution
