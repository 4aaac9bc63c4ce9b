#include "host/process_info.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>

#include <filesystem>
#include <fstream>

namespace gpuwatch::host {
namespace {

namespace fs = std::filesystem;

class FakeProc : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpuwatch-proc-" + std::to_string(getpid()));
    fs::create_directories(root_ / "4242");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& name, const std::string& content) {
    std::ofstream(root_ / "4242" / name, std::ios::binary) << content;
  }
  fs::path root_;
};

TEST_F(FakeProc, ReadsUserCommandLineAndName) {
  write("status", "Name:\tpython3\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n");
  write("cmdline", std::string("/usr/bin/python3\0train.py\0--epochs\0" "3\0", 37));
  write("comm", "python3\n");
  ProcessInfo info = read_process_info(4242, root_.string());
  EXPECT_EQ(info.user, "root");
  EXPECT_EQ(info.command_line, "/usr/bin/python3 train.py --epochs 3");
  EXPECT_EQ(info.name, "python3");
  EXPECT_EQ(info.command(), "python3");
}

TEST_F(FakeProc, UnknownUidIsShownAsNumber) {
  write("status", "Uid:\t4000000\t4000000\t4000000\t4000000\n");
  EXPECT_EQ(read_process_info(4242, root_.string()).user, "4000000");
}

TEST_F(FakeProc, KernelThreadHasNoCommandLineButAName) {
  write("cmdline", "");
  write("comm", "kworker/0:1\n");
  ProcessInfo info = read_process_info(4242, root_.string());
  EXPECT_FALSE(info.command_line.has_value());
  EXPECT_EQ(info.command(), "kworker/0:1");
}

TEST_F(FakeProc, VanishedProcessHasNothing) {
  ProcessInfo info = read_process_info(999999, root_.string());
  EXPECT_FALSE(info.user.has_value());
  EXPECT_FALSE(info.command().has_value());
}

TEST(ProcessInfo, ReadsThisProcessFromRealProc) {
  ProcessInfo info = read_process_info(static_cast<unsigned>(getpid()));
  ASSERT_TRUE(info.name.has_value());
  EXPECT_EQ(*info.name, std::string(program_invocation_short_name).substr(0, 15));
  EXPECT_TRUE(info.user.has_value());
}

}  // namespace
}  // namespace gpuwatch::host
