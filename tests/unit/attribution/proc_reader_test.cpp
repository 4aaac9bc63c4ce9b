#include "attribution/proc_reader.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::attribution {
namespace {

using namespace std::string_literals;

TEST(ProcReader, StartTicksAfterTheLastParenthesis) {
  // comm "(a) b)" holds a space and ')': fields are counted after the last ')'.
  std::string stat = "4242 ((a) b)) S 1 4242 4242 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 1 0 987654 1000 100";
  EXPECT_EQ(start_ticks_of_stat(stat), 987654u);
  EXPECT_FALSE(start_ticks_of_stat("4242 (x) S 1 2"));
  EXPECT_FALSE(start_ticks_of_stat("no parenthesis"));
}

TEST(ProcReader, NamespacePidOnlyWhenNested) {
  EXPECT_EQ(namespace_pid_of_status("Name:\tpython\nNSpid:\t14729\t1\nUid:\t0\n"), 1u);
  EXPECT_EQ(namespace_pid_of_status("Name:\tpython\nNSpid:\t14729\t57\t7\n"), 7u);
  EXPECT_FALSE(namespace_pid_of_status("Name:\tpython\nNSpid:\t14729\n"));
  EXPECT_FALSE(namespace_pid_of_status("Name:\tpython\n"));
}

TEST(ProcReader, CgroupWinsOverTheEnvironmentAndNamesTheUser) {
  ProcFiles files;
  files.cgroup = "0::/system.slice/slurmstepd.scope/job_77/step_0/user/task_0\n";
  files.environ = "SLURM_JOB_ID=77\0SLURM_STEP_ID=0\0SLURM_JOB_USER=alice\0"s;
  Attribution a = attribution_of_files(files);
  EXPECT_EQ(a.slurm_job_id, "77");
  EXPECT_EQ(a.slurm_step, "0");
  EXPECT_EQ(a.slurm_user, "alice");
}

TEST(ProcReader, EnvironmentAloneGivesTheJob) {
  ProcFiles files;
  files.cgroup = "0::/user.slice/user-1000.slice/session-1.scope\n";  // cgroup plugin off
  files.environ = "SLURM_JOB_ID=5\0SLURM_STEP_ID=1\0"s;
  Attribution a = attribution_of_files(files);
  EXPECT_EQ(a.slurm_job_id, "5");
  EXPECT_EQ(a.slurm_step, "1");
}

TEST(ProcReader, NothingReadableIsEmpty) {
  EXPECT_TRUE(attribution_of_files(ProcFiles{}).empty());
  EXPECT_FALSE(read_proc_files(4242, "/nonexistent-proc-root").cgroup);
}

}  // namespace
}  // namespace gpuwatch::attribution
