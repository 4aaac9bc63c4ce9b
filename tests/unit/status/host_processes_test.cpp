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
    // Up 1000 s; the process started 100 s after boot, so it has run 900 s.
    std::ofstream(root_ / "uptime") << "1000.00 1900.00\n";
  }
  void TearDown() override { fs::remove_all(root_); }
  void set_ticks(long ticks) {
    ticks_ = ticks;
    // utime (field 14) = TICKS, stime 0, starttime (field 22) = 100 s after boot.
    std::ofstream(root_ / "4242" / "stat") << "4242 (python) S 1 1 1 0 -1 0 0 0 0 0 " << ticks << " 0 0 0 20 0 1 0 "
                                           << 100 * ticks_per_s_ << " 0 0\n";
  }
  fs::path root_;
  core::Snapshot snapshot_;
  HostReader reader_;
  host::CpuTracker::Clock::time_point now_{std::chrono::seconds(1000)};
  long ticks_ = 0;
  long ticks_per_s_ = sysconf(_SC_CLK_TCK);
};

// issue 26: a one-shot status waits for no second reading; a process seen for the first time
// gets its CPU time over its run time, as ps gives it, and says so.
TEST_F(HostProcesses, issue_26_one_shot_gives_the_average_since_the_process_started) {
  host::CpuTracker tracker;
  set_ticks(450 * ticks_per_s_);  // 450 s of CPU in 900 s of life
  const auto before = now_;
  auto processes = read_host_processes(snapshot_, tracker, reader_);
  EXPECT_EQ(now_, before);  // nothing waited
  ASSERT_TRUE(processes[4242].cpu_ratio.has_value());
  EXPECT_NEAR(*processes[4242].cpu_ratio, 0.5, 1e-9);
  EXPECT_TRUE(processes[4242].cpu_over_lifetime);
  EXPECT_EQ(processes[4242].rss_bytes, 1024u * 1024u);
}

TEST_F(HostProcesses, issue_9_loops_use_the_interval_between_samples) {
  host::CpuTracker tracker;
  read_host_processes(snapshot_, tracker, reader_);
  now_ += std::chrono::seconds(2);
  set_ticks(ticks_ + 3 * ticks_per_s_);  // 3 s of CPU in 2 s
  auto processes = read_host_processes(snapshot_, tracker, reader_);
  ASSERT_TRUE(processes[4242].cpu_ratio.has_value());
  EXPECT_NEAR(*processes[4242].cpu_ratio, 1.5, 1e-9);
  EXPECT_FALSE(processes[4242].cpu_over_lifetime);  // the interval since the last frame

  snapshot_.devices[0].processes.clear();  // the process ended: forgotten
  read_host_processes(snapshot_, tracker, reader_);
  EXPECT_EQ(tracker.size(), 0u);
}

TEST_F(HostProcesses, NothingWithoutProcesses) {
  host::CpuTracker tracker;
  snapshot_.devices[0].processes.clear();
  EXPECT_TRUE(read_host_processes(snapshot_, tracker, reader_).empty());
  EXPECT_EQ(tracker.size(), 0u);
}

}  // namespace
}  // namespace gpuwatch::status
