#include "attribution/attribution_json.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::attribution {
namespace {

TEST(AttributionJson, EveryKeyPresentNullWhenUnknown) {
  auto empty = attribution_json({});
  EXPECT_EQ(empty.size(), 13u);
  for (const auto& [key, value] : empty.items()) EXPECT_TRUE(value.is_null()) << key;
  Attribution a;
  a.runtime = Runtime::CriO;
  a.pod_name = "trainer-0";
  a.pod_namespace = "ml";
  a.container_pid = 1;
  auto j = attribution_json(a);
  EXPECT_EQ(j["runtime"], "cri-o");
  EXPECT_EQ(j["pod"], "trainer-0");
  EXPECT_EQ(j["container_pid"], 1);
  EXPECT_EQ(j["summary"], "pod ml/trainer-0");
  EXPECT_TRUE(j["slurm_job_id"].is_null());
}

}  // namespace
}  // namespace gpuwatch::attribution
