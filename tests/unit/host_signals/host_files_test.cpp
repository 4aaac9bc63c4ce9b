#include "host_signals/host_files.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "host_signals/host_sampler.hpp"

namespace gpuwatch::host_signals {
namespace host_files_test {

namespace fs = std::filesystem;

class HostFakeRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpuwatch-host-signals-" + std::to_string(getpid()));
    fs::create_directories(root_ / "proc/net");
    fs::create_directories(root_ / "sys/block/sdb");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& path, const std::string& text) { std::ofstream(root_ / path, std::ios::binary) << text; }
  fs::path root_;
};

TEST_F(HostFakeRoot, ReadsAndListsUnderTheRoot) {
  write("proc/stat", "cpu  1 2 3 4\n");
  RootedHostFiles files(root_.string() + "/");
  EXPECT_EQ(files.read("/proc/stat"), "cpu  1 2 3 4\n");
  EXPECT_EQ(files.read("/proc/stat", 3), "cpu");
  EXPECT_FALSE(files.read("/proc/meminfo"));
  EXPECT_EQ(files.list("/sys/block"), std::vector<std::string>{"sdb"});
  EXPECT_FALSE(files.list("/sys/class/infiniband"));
}

TEST_F(HostFakeRoot, TheSignalsRootIsTheHostRootOnlyWhenItHasProcStat) {
  EXPECT_EQ(host_signals_root(root_.string()), "/");  // the simulator's host of today: no /proc/stat
  write("proc/stat", "cpu  1 2 3 4\n");
  EXPECT_EQ(host_signals_root(root_.string()), root_.string());
  EXPECT_EQ(host_signals_root("/"), "/");
}

// GPUWATCH_HOST_ROOT pointed at a tree written here: the sampler reads it, not the real /proc
// (the end-to-end `--simulate` run cannot show this: the simulation sets its own root).
TEST_F(HostFakeRoot, TheSamplerReadsAFakeTree) {
  write("proc/stat", "cpu  10 0 0 90 0 0 0 0 0 0\ncpu0 10 0 0 90 0 0 0 0 0 0\n");
  write("proc/meminfo", "MemTotal: 2000 kB\nMemAvailable: 500 kB\n");
  write("proc/diskstats", " 8 16 sdb 1 0 8 0 1 0 16 0 0 5 0 0 0 0\n 8 17 sdb1 1 0 8 0 1 0 16 0 0 5 0 0 0 0\n");
  write("proc/net/dev", "h\nh\n eth9: 1 0 0 0 0 0 0 0 2 0 0 0 0 0 0 0\n");
  HostSampler sampler = HostSampler::under_root(root_.string());
  const auto t0 = std::chrono::steady_clock::now();
  sampler.sample(t0);
  write("proc/stat", "cpu  40 0 0 160 0 0 0 0 0 0\ncpu0 40 0 0 160 0 0 0 0 0 0\n");
  write("proc/net/dev", "h\nh\n eth9: 1001 0 0 0 0 0 0 0 2 0 0 0 0 0 0 0\n");
  const HostSample s = sampler.sample(t0 + std::chrono::seconds(1));
  ASSERT_TRUE(s.cpu_busy_percent);
  EXPECT_DOUBLE_EQ(*s.cpu_busy_percent, 30.0);
  EXPECT_EQ(s.memory_available_percent, 25.0);
  EXPECT_FALSE(s.cpu_pressure_some_percent);  // the tree has no /proc/pressure
  ASSERT_EQ(s.disks.size(), 1u);
  EXPECT_EQ(s.disks[0].name, "sdb");
  EXPECT_EQ(s.net_rx_bytes_per_s, 1000.0);
  ASSERT_EQ(s.interfaces.size(), 1u);
  EXPECT_EQ(s.interfaces[0].name, "eth9");
}

}  // namespace host_files_test
}  // namespace gpuwatch::host_signals
