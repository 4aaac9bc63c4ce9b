#include "host_signals/host_files.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

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

std::size_t descriptors_open() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator("/proc/self/fd")) ++n;
  return n;
}

// The real root keeps the system's files open and reads them again from offset 0: the text is
// generated anew (the uptime moves), no descriptor is added per read, and a process's own files
// are opened each time (they come and go).
TEST(HostRealRoot, KeepsSystemFilesOpenAndReadsThemAnew) {
  RootedHostFiles files("/");
  auto first = files.read("/proc/uptime");
  ASSERT_TRUE(first);
  EXPECT_EQ(files.open_files(), 1u);
  const std::size_t before = descriptors_open();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  std::optional<std::string> later;
  for (int i = 0; i < 50; ++i) later = files.read("/proc/uptime");
  ASSERT_TRUE(later);
  EXPECT_GT(std::stod(*later), std::stod(*first));  // generated again, not the first text
  EXPECT_EQ(descriptors_open(), before);
  EXPECT_EQ(files.open_files(), 1u);
  ASSERT_TRUE(files.read("/proc/self/stat"));
  ASSERT_TRUE(files.read("/proc/" + std::to_string(getpid()) + "/stat"));
  EXPECT_EQ(files.open_files(), 1u);  // not kept
  EXPECT_FALSE(files.read("/proc/no-such-file"));
  EXPECT_EQ(files.open_files(), 1u);
  // A whole /proc/stat read through the kept descriptor (longer than one 8 KiB read on big hosts).
  auto stat = files.read("/proc/stat");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->rfind("cpu ", 0), 0u);
  EXPECT_EQ(files.read("/proc/stat")->rfind("cpu ", 0), 0u);
}

TEST_F(HostFakeRoot, AnotherRootOpensEveryRead) {
  write("proc/stat", "cpu  1 0 0 1 0 0 0 0 0 0\n");
  RootedHostFiles files(root_.string());
  ASSERT_EQ(files.read("/proc/stat"), std::string("cpu  1 0 0 1 0 0 0 0 0 0\n"));
  // Replaced by rename (as the simulator does): the next read sees the new file.
  write("proc/stat.tmp", "cpu  2 0 0 2 0 0 0 0 0 0\n");
  fs::rename(root_ / "proc/stat.tmp", root_ / "proc/stat");
  EXPECT_EQ(files.read("/proc/stat"), std::string("cpu  2 0 0 2 0 0 0 0 0 0\n"));
  EXPECT_EQ(files.open_files(), 0u);
}

}  // namespace host_files_test
}  // namespace gpuwatch::host_signals
