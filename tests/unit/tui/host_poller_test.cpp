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

// A process seen before is read from stat and statm only; a reused PID (another start time) anew.
TEST(HostPoller, AKnownProcessCostsStatAndStatmOnly) {
  auto root = std::filesystem::temp_directory_path() / ("gw-top-proc2-" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "4242");
  std::ofstream(root / "uptime") << "150.25 300.00\n";
  std::ofstream(root / "4242" / "stat") << kStat << "\n";
  std::ofstream(root / "4242" / "status") << "Name:\tpython\nUid:\t0\t0\t0\t0\nVmRSS:\t  2048 kB\n";
  std::ofstream(root / "4242" / "cmdline") << std::string("python\0train.py\0", 16);
  HostPoller poller(std::chrono::seconds(2), root.string());
  poller.want({4242});
  poller.poll_once();
  EXPECT_EQ(poller.latest()[4242].info.command_line, "python train.py");
  // Second pass: a new command line is not read (the same process), the RSS comes from statm.
  std::ofstream(root / "4242" / "cmdline") << std::string("other\0", 6);
  std::ofstream(root / "4242" / "statm") << "5000 10 3 1 0 400 0\n";
  poller.poll_once();
  auto second = poller.latest()[4242];
  EXPECT_EQ(second.info.command_line, "python train.py");
  EXPECT_EQ(second.info.user, "root");
  EXPECT_EQ(second.info.rss_bytes, 10u * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(second.ppid, 1u);
  EXPECT_TRUE(second.elapsed_seconds.has_value());
  // The PID is reused (start time 6000): read anew.
  std::string reused = kStat;
  reused.replace(reused.find(" 5000 "), 6, " 6000 ");
  std::ofstream(root / "4242" / "stat") << reused << "\n";
  poller.poll_once();
  EXPECT_EQ(poller.latest()[4242].info.command_line, "other");
  // Gone: absent. (The poller keeps stat and statm open; in /proc such a file of a process that
  // ended reads as an error, where this regular file would keep its text: it is emptied first.)
  std::ofstream(root / "4242" / "stat", std::ios::trunc).flush();
  std::filesystem::remove_all(root / "4242");
  poller.poll_once();
  EXPECT_FALSE(poller.latest()[4242].info.command_line.has_value());
  std::filesystem::remove_all(root);
}

TEST(HostPoller, StartTimeAndStatmParsers) {
  EXPECT_EQ(start_time_of(kStat), "5000");
  EXPECT_EQ(start_time_of("garbage"), "");
  EXPECT_EQ(rss_of_statm("100 25 3 1 0 40 0", 4096), 25u * 4096);
  EXPECT_FALSE(rss_of_statm("", 4096).has_value());
}

}  // namespace
}  // namespace gpuwatch::tui
