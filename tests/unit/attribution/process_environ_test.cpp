#include "attribution/process_environ.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::attribution {
namespace {

std::string env(std::initializer_list<std::string> entries) {
  std::string out;
  for (const auto& e : entries) out += e + '\0';
  return out;
}

TEST(ProcessEnviron, ReadsSlurmAndDevicePluginVariables) {
  auto facts = parse_environ(env({"PATH=/usr/bin", "SLURM_JOB_ID=4821", "SLURM_STEP_ID=2", "SLURM_JOB_USER=alice",
                                  "HOSTNAME=trainer-0", "NVIDIA_VISIBLE_DEVICES=GPU-aaa, GPU-bbb"}));
  EXPECT_EQ(facts.slurm_job_id, "4821");
  EXPECT_EQ(facts.slurm_step_id, "2");
  EXPECT_EQ(facts.slurm_job_user, "alice");
  EXPECT_EQ(facts.hostname, "trainer-0");
  EXPECT_EQ(facts.visible_devices, (std::vector<std::string>{"GPU-aaa", "GPU-bbb"}));
}

TEST(ProcessEnviron, OldNamesOnlyWhenTheNewAreAbsent) {
  EXPECT_EQ(parse_environ(env({"SLURM_JOBID=9"})).slurm_job_id, "9");
  EXPECT_EQ(parse_environ(env({"SLURM_JOB_ID=10", "SLURM_JOBID=9"})).slurm_job_id, "10");
}

TEST(ProcessEnviron, AllAndEmptyValuesSayNothing) {
  auto facts = parse_environ(env({"NVIDIA_VISIBLE_DEVICES=all", "SLURM_JOB_ID=", "=x", "noequals"}));
  EXPECT_TRUE(facts.visible_devices.empty());
  EXPECT_FALSE(facts.slurm_job_id);
}

}  // namespace
}  // namespace gpuwatch::attribution
