#include "host/process_info.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <map>

#include <filesystem>
#include <fstream>

namespace gpuwatch::host {
namespace process_info_test {  // this test file's helpers (unity builds: no clash with another file's)

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
  ASSERT_TRUE(info.rss_bytes.has_value());
  EXPECT_GT(*info.rss_bytes, 1024u * 1024u);  // a gtest binary is resident in more than 1 MiB
  EXPECT_TRUE(info.cpu_seconds.has_value());
  EXPECT_FALSE(info.cpu_ratio.has_value());  // needs two readings: CpuTracker
}

TEST_F(FakeProc, ReadsResidentMemoryAndCpuTime) {
  write("status", "Name:\tpython3\nUid:\t0\t0\t0\t0\nVmRSS:\t  204800 kB\nVmSwap:\t0 kB\n");
  // utime 250 and stime 50 ticks (fields 14 and 15); the name holds a space and a ')'.
  write("stat", "4242 (py) thon) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 8 0 100 1000 500\n");
  ProcessInfo info = read_process_info(4242, root_.string());
  EXPECT_EQ(info.rss_bytes, std::uint64_t{204800} * 1024);
  ASSERT_TRUE(info.cpu_seconds.has_value());
  EXPECT_DOUBLE_EQ(*info.cpu_seconds, 300.0 / static_cast<double>(sysconf(_SC_CLK_TCK)));
}

TEST(CpuSecondsOfStat, CountsFieldsAfterTheLastParenthesis) {
  EXPECT_EQ(cpu_seconds_of_stat("1 (a b) R 0 0 0 0 0 0 0 0 0 0 300 100 0 0", 100), 4.0);
  EXPECT_FALSE(cpu_seconds_of_stat("1 (x) R 0 0", 100).has_value());  // truncated
  EXPECT_FALSE(cpu_seconds_of_stat("garbage", 100).has_value());
}

TEST(RunSecondsOfStat, StartTimeAgainstUptime) {
  // field 22 (starttime) = 5000 ticks = 50 s after boot at 100 ticks/s; up 1234.5 s.
  const std::string stat = "1 (a) b) S 1 1 1 0 -1 0 0 0 0 0 300 100 0 0 20 0 1 0 5000 1000 500";
  EXPECT_DOUBLE_EQ(*run_seconds_of_stat(stat, "1234.50 999.00\n", 100), 1184.5);
  EXPECT_EQ(run_seconds_of_stat(stat, "10.0 1.0", 100), 0.0);  // clock skew: never negative
  EXPECT_FALSE(run_seconds_of_stat(stat, "", 100).has_value());
  EXPECT_FALSE(run_seconds_of_stat("1 (x) R 0 0", "100.0", 100).has_value());  // truncated
}

TEST(CpuTracker, NeedsTwoReadingsAndGivesTheRatioOfOneCore) {
  CpuTracker tracker;
  auto t0 = CpuTracker::Clock::time_point(std::chrono::seconds(100));
  ProcessInfo first;
  first.cpu_seconds = 10.0;
  tracker.update(7, first, t0);
  EXPECT_FALSE(first.cpu_ratio.has_value());  // first reading: no CPU % yet (absent, not 0)
  EXPECT_TRUE(tracker.knows(7));

  ProcessInfo second;
  second.cpu_seconds = 13.0;  // 3 s of CPU in 2 s: one and a half cores
  tracker.update(7, second, t0 + std::chrono::seconds(2));
  ASSERT_TRUE(second.cpu_ratio.has_value());
  EXPECT_DOUBLE_EQ(*second.cpu_ratio, 1.5);

  ProcessInfo reused;  // a new process with the same PID: CPU time went down; no ratio
  reused.cpu_seconds = 0.5;
  tracker.update(7, reused, t0 + std::chrono::seconds(3));
  EXPECT_FALSE(reused.cpu_ratio.has_value());

  ProcessInfo unreadable;  // no /proc entry: nothing remembered
  tracker.update(8, unreadable, t0);
  EXPECT_FALSE(tracker.knows(8));

  tracker.retain(std::map<unsigned, int>{});  // process 7 ended
  EXPECT_EQ(tracker.size(), 0u);
}

}  // namespace process_info_test
}  // namespace gpuwatch::host
