#include "tui/host_poller.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch::tui {
namespace {

// A /proc/<pid>/stat line whose command holds a space and a parenthesis; starttime (field 22) = 5000 ticks.
const std::string kStat =
    "4242 (py (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 5000 1000000 200 18446744073709551615";

TEST(HostPoller, ElapsedFromStartTimeAndUptime) {
  auto e = elapsed_seconds_of(kStat, "150.25 300.00\n", 100);
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(*e, 100.25);
  EXPECT_FALSE(elapsed_seconds_of("garbage", "150 1", 100).has_value());
  EXPECT_FALSE(elapsed_seconds_of(kStat, "", 100).has_value());
  EXPECT_FALSE(elapsed_seconds_of(kStat, "10 1", 100).has_value());  // started after the uptime: not believable
}

TEST(HostPoller, ReadsTheWantedPidsFromAProcRoot) {
  auto root = std::filesystem::temp_directory_path() / ("gw-top-proc-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "4242");
  std::ofstream(root / "uptime") << "150.25 300.00\n";
  std::ofstream(root / "4242" / "stat") << kStat << "\n";
  std::ofstream(root / "4242" / "status") << "Name:\tpython\nUid:\t0\t0\t0\t0\nVmRSS:\t  2048 kB\n";
  std::ofstream(root / "4242" / "cmdline") << std::string("python\0train.py\0", 16);
  HostPoller poller(std::chrono::seconds(2), root.string());
  poller.want({4242, 999999});
  poller.poll_once();
  auto latest = poller.latest();
  ASSERT_EQ(latest.count(4242), 1u);
  EXPECT_EQ(latest[4242].info.command_line, "python train.py");
  EXPECT_EQ(latest[4242].info.rss_bytes, 2048u * 1024);
  EXPECT_EQ(latest[4242].info.user, "root");
  EXPECT_TRUE(latest[4242].elapsed_seconds.has_value());
  EXPECT_FALSE(latest[999999].info.command_line.has_value());  // gone: absent, not empty values
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace gpuwatch::tui
