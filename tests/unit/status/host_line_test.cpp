#include "status/host_line.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::status {
namespace host_line_test {

host_signals::HostSample busy_host() {
  host_signals::HostSample s;
  s.interval_s = 0.1;
  s.cpu_busy_percent = 23.4;
  s.cpu_iowait_percent = 1.2;
  s.cpu_steal_percent = 0;
  s.memory_available_percent = 41;
  s.swap_in_pages_per_s = 0;
  s.swap_out_pages_per_s = 0;
  s.disk_read_bytes_per_s = 12e6;
  s.disk_write_bytes_per_s = 3e6;
  s.net_rx_bytes_per_s = 1.2e6;
  s.net_tx_bytes_per_s = 3e5;
  s.cores = {{0, 20.0}, {1, std::nullopt}};
  return s;
}

TEST(HostLine, ShowsEachPartWithItsUnit) {
  const std::string line = render_host_line(busy_host(), terminal::Style(false));
  EXPECT_EQ(line,
            "host  CPU 23 % (iowait 1 %, steal 0 %) | mem 41 % avail, swap 0 pg/s | disk R 12 MB/s W 3.0 MB/s | "
            "net RX 1.2 MB/s TX 300 kB/s\n");
}

TEST(HostLine, LeavesOutWhatIsAbsentAndAddsWhatIsThere) {
  host_signals::HostSample s = busy_host();
  s.cpu_steal_percent.reset();
  s.cpu_pressure_some_percent = 7;
  s.disk_read_bytes_per_s.reset();
  s.disk_write_bytes_per_s.reset();
  s.ib_rx_bytes_per_s = 2.1e9;
  s.ib_tx_bytes_per_s = 2e9;
  const std::string line = render_host_line(s, terminal::Style(false));
  EXPECT_NE(line.find("CPU 23 % (iowait 1 %, PSI 7 %)"), std::string::npos) << line;
  EXPECT_EQ(line.find("steal"), std::string::npos) << line;
  EXPECT_EQ(line.find("disk"), std::string::npos) << line;
  EXPECT_NE(line.find("| IB RX 2.1 GB/s TX 2.0 GB/s\n"), std::string::npos) << line;
  EXPECT_EQ(render_host_line(host_signals::HostSample{}, terminal::Style(false)).rfind("host  N/A", 0), 0u);
}

TEST(HostLine, UnderWideColumnsTheCompactFormFitsDroppingPartsFromTheRight) {
  host_signals::HostSample s = busy_host();
  EXPECT_EQ(render_host_line(s, terminal::Style(false), 100),
            "host  CPU 23% io 1% | mem 41% avail | disk R 12M W 3.0M | net RX 1.2M TX 300k\n");
  s.ib_rx_bytes_per_s = 2.1e9;
  s.ib_tx_bytes_per_s = 2e9;
  const std::string narrow = render_host_line(s, terminal::Style(true), 80);  // colours do not count
  EXPECT_EQ(narrow.find("IB"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("net RX 1.2M TX 300k\n"), std::string::npos) << narrow;
  EXPECT_EQ(render_host_line(s, terminal::Style(false), 40), "host  CPU 23% io 1% | mem 41% avail\n");
  EXPECT_NE(render_host_line(s, terminal::Style(false), 0).find("IB RX 2.1 GB/s"), std::string::npos);  // 0: wide
}

TEST(HostLine, PartsLeaveOutWhatIsAbsentAndFitFromTheLeft) {
  host_signals::HostSample s = busy_host();
  s.disk_read_bytes_per_s.reset();
  s.disk_write_bytes_per_s.reset();
  const auto parts = host_line_parts(s, terminal::Style(false), true);
  ASSERT_EQ(parts, (std::vector<std::string>{"CPU 23% io 1%", "mem 41% avail", "net RX 1.2M TX 300k"}));
  // label 6 + 13 = 19; + " | " + 13 = 35; + " | " + 19 = 57.
  EXPECT_EQ(host_parts_that_fit(parts, 6, 57), 3u);
  EXPECT_EQ(host_parts_that_fit(parts, 6, 56), 2u);
  EXPECT_EQ(host_parts_that_fit(parts, 6, 35), 2u);
  EXPECT_EQ(host_parts_that_fit(parts, 6, 34), 1u);
  EXPECT_EQ(host_parts_that_fit(parts, 6, 3), 1u);  // never none: the caller cuts the one left
  EXPECT_EQ(host_parts_that_fit({}, 6, 80), 0u);
  // Colour escapes take no column (a busy CPU is painted).
  s.cpu_busy_percent = 95;
  const auto painted = host_line_parts(s, terminal::Style(true), true);
  EXPECT_NE(painted[0].find('\x1b'), std::string::npos);
  EXPECT_EQ(host_parts_that_fit(painted, 6, 57), 3u);
  EXPECT_EQ(host_parts_that_fit(painted, 6, 56), 2u);
  EXPECT_TRUE(host_line_parts(host_signals::HostSample{}, terminal::Style(false), false).empty());
}

TEST(HostLine, CpuSeverityFollowsTheBusyShare) {
  EXPECT_EQ(host_cpu_severity(std::nullopt), terminal::Severity::Ok);
  EXPECT_EQ(host_cpu_severity(69.9), terminal::Severity::Ok);
  EXPECT_EQ(host_cpu_severity(70), terminal::Severity::Warn);
  EXPECT_EQ(host_cpu_severity(90), terminal::Severity::Critical);
}

TEST(HostLine, ByteRatesReadLikePeopleWriteThem) {
  EXPECT_EQ(byte_rate_text(0), "0 B/s");
  EXPECT_EQ(byte_rate_text(812), "812 B/s");
  EXPECT_EQ(byte_rate_text(999.7), "1.0 kB/s");
  EXPECT_EQ(byte_rate_text(12e3), "12 kB/s");
  EXPECT_EQ(byte_rate_text(1.25e6), "1.2 MB/s");
  EXPECT_EQ(byte_rate_text(3.4e9), "3.4 GB/s");
}

TEST(HostLine, JsonHasEveryKeyAndNullForAbsent) {
  const auto json = host_json(busy_host());
  EXPECT_EQ(json["cpu_busy_percent"], 23.4);
  EXPECT_TRUE(json["cpu_pressure_some_percent"].is_null());  // no PSI: null, never 0
  EXPECT_TRUE(json["ib_rx_bytes_per_s"].is_null());
  EXPECT_TRUE(json.contains("memory_total_bytes"));
  ASSERT_EQ(json["cores"].size(), 2u);
  EXPECT_EQ(json["cores"][0]["busy_percent"], 20.0);
  EXPECT_TRUE(json["cores"][1]["busy_percent"].is_null());
}

}  // namespace host_line_test
}  // namespace gpuwatch::status
