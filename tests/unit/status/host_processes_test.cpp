#include "status/host_processes.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch::status {
namespace {

namespace fs = std::filesystem;

// A fake /proc with one GPU process whose CPU time the test advances.
class HostProcesses : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpuwatch-hostproc-" + std::to_string(getpid()));
    fs::create_directories(root_ / "4242");
    std::ofstream(root_ / "4242" / "status") << "Uid:\t0\t0\t0\t0\nVmRSS:\t1024 kB\n";
    set_ticks(0);
    snapshot_.devices.resize(1);
    snapshot_.devices[0].processes.resize(1);
    snapshot_.devices[0].processes[0].pid = 4242;
    reader_.proc_root = root_.string();
    reader_.now = [this] { return now_; };
    reader_.sleep = [this](std::chrono::milliseconds d) {
      ++sleeps_;
      now_ += d;
      set_ticks(ticks_ + ticks_per_s_ / 20);  // busy half of the 100 ms window
    };
  }
  void TearDown() override { fs::remove_all(root_); }
  void set_ticks(long ticks) {
    ticks_ = ticks;
    std::ofstream(root_ / "4242" / "stat") << "4242 (python) S 1 1 1 0 -1 0 0 0 0 0 " << ticks << " 0 0 0\n";
  }
  fs::path root_;
  core::Snapshot snapshot_;
  HostReader reader_;
  host::CpuTracker::Clock::time_point now_{std::chrono::seconds(1000)};
  long ticks_ = 0;
  long ticks_per_s_ = sysconf(_SC_CLK_TCK);
  int sleeps_ = 0;
};

TEST_F(HostProcesses, issue_9_one_shot_takes_a_short_second_reading) {
  host::CpuTracker tracker;
  auto processes = read_host_processes(snapshot_, tracker, reader_);
  EXPECT_EQ(sleeps_, 1);
  ASSERT_TRUE(processes[4242].cpu_ratio.has_value());
  EXPECT_NEAR(*processes[4242].cpu_ratio, 0.5, 1e-9);
  EXPECT_EQ(processes[4242].rss_bytes, 1024u * 1024u);
}

TEST_F(HostProcesses, issue_9_loops_use_the_interval_between_samples) {
  host::CpuTracker tracker;
  read_host_processes(snapshot_, tracker, reader_);
  now_ += std::chrono::seconds(2);
  set_ticks(ticks_ + 3 * ticks_per_s_);  // 3 s of CPU in 2 s
  auto processes = read_host_processes(snapshot_, tracker, reader_);
  EXPECT_EQ(sleeps_, 1);  // known process: no extra wait
  ASSERT_TRUE(processes[4242].cpu_ratio.has_value());
  EXPECT_NEAR(*processes[4242].cpu_ratio, 1.5, 1e-9);

  snapshot_.devices[0].processes.clear();  // the process ended: forgotten
  read_host_processes(snapshot_, tracker, reader_);
  EXPECT_EQ(tracker.size(), 0u);
}

TEST_F(HostProcesses, NoWaitWithoutProcesses) {
  host::CpuTracker tracker;
  snapshot_.devices[0].processes.clear();
  EXPECT_TRUE(read_host_processes(snapshot_, tracker, reader_).empty());
  EXPECT_EQ(sleeps_, 0);
}

}  // namespace
}  // namespace gpuwatch::status
