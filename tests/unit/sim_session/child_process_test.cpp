#include "sim_session/child_process.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace gpuwatch::sim_session {
namespace {

TEST(SimChildProcess, ReturnsTheExitCode) {
  EXPECT_EQ(run_child_process({"sh", "-c", "exit 0"}), 0);
  EXPECT_EQ(run_child_process({"sh", "-c", "exit 7"}), 7);
}

TEST(SimChildProcess, KilledBySignalIs128PlusN) {
  EXPECT_EQ(run_child_process({"sh", "-c", "kill -TERM $$"}), 128 + SIGTERM);
}

TEST(SimChildProcess, MissingCommandIs127WithAMessage) {
  testing::internal::CaptureStderr();
  const int rc = run_child_process({"gpuwatch-no-such-command-xyz"});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(rc, 127);
  EXPECT_NE(err.find("gpuwatch-no-such-command-xyz"), std::string::npos) << err;
}

TEST(SimChildProcess, NotExecutableIs126) {
  // No execute bit at all: EACCES even for root.
  const std::string path = std::filesystem::temp_directory_path() / ("gw_not_exec_" + std::to_string(::getpid()));
  std::ofstream(path) << "echo hi\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  testing::internal::CaptureStderr();
  const int rc = run_child_process({path});
  const std::string err = testing::internal::GetCapturedStderr();
  std::filesystem::remove(path);
  EXPECT_EQ(rc, 126);
  EXPECT_NE(err.find("Permission denied"), std::string::npos) << err;
}

TEST(SimChildProcess, ForwardsSigtermSentToUs) {
  // The child traps TERM and exits 42; it asks for a TERM to its parent (us), which
  // must pass it on. The handlers are ours only while the child runs.
  const int rc = run_child_process(
      {"sh", "-c", "trap 'exit 42' TERM; kill -TERM $PPID; i=0; while [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; exit 3"});
  EXPECT_EQ(rc, 42);
  struct sigaction after {};
  ::sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(after.sa_handler, SIG_DFL);
}

TEST(SimChildProcess, EmptyCommandIsAnError) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(run_child_process({}), 127);
  testing::internal::GetCapturedStderr();
}

}  // namespace
}  // namespace gpuwatch::sim_session
