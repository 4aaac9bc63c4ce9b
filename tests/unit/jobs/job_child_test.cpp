#include "jobs/job_child.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuwatch::jobs {
namespace {

TEST(JobChild, ExitStatusPassesThrough) {
  auto child = JobChild::start({"/bin/sh", "-c", "exit 3"}, {});
  ASSERT_TRUE(child);
  auto exit = (*child)->wait();
  EXPECT_EQ(exit.status, 3);
  EXPECT_EQ(exit.signal, std::nullopt);
}

TEST(JobChild, ASignalIs128PlusN) {
  auto child = JobChild::start({"/bin/sh", "-c", "kill -TERM $$"}, {});
  ASSERT_TRUE(child);
  auto exit = (*child)->wait();
  EXPECT_EQ(exit.status, 128 + 15);
  EXPECT_EQ(exit.signal, 15);
}

TEST(JobChild, TheChildGetsTheAddedEnvironment) {
  const std::string out = (std::filesystem::temp_directory_path() / ("gpuwatch-child-" + std::to_string(::getpid()))).string();
  auto child = JobChild::start({"/bin/sh", "-c", "printf %s \"$GPUWATCH_JOB_ID:$HOME_IS_KEPT\" > " + out},
                               {{"GPUWATCH_JOB_ID", "17"}, {"HOME_IS_KEPT", "yes"}});
  ASSERT_TRUE(child);
  EXPECT_EQ((*child)->wait().status, 0);
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "17:yes");
  std::remove(out.c_str());
}

TEST(JobChild, ACommandNotFoundIs127) {
  auto child = JobChild::start({"gpuwatch-no-such-command-xyz"}, {});
  ASSERT_FALSE(child);
  EXPECT_EQ(child.error().code, 127);
  EXPECT_NE(child.error().message.find("gpuwatch-no-such-command-xyz"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::jobs
