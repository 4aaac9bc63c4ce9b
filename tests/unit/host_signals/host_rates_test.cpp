#include "host_signals/host_rates.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::host_signals {
namespace host_rates_test {

using namespace std::chrono;

HostReading reading_at(double seconds, std::uint64_t busy_ticks, std::uint64_t idle_ticks) {
  HostReading r;
  r.at = steady_clock::time_point(duration_cast<steady_clock::duration>(duration<double>(seconds)));
  ProcStat stat;
  stat.total = CpuTimes{busy_ticks, 0, 0, idle_ticks, 0, 0, 0, 0};
  stat.cores = {{0, *stat.total}};
  r.cpu = stat;
  r.memory = MemInfo{1000, 250, 100, 100};
  r.swap = SwapCounters{0, 0};
  r.disks = std::vector<DiskCounters>{{"vda", 0, 0, 0}};
  r.interfaces = std::vector<InterfaceCounters>{{"eth0", 0, 0}, {"eth1", 0, 0}};
  return r;
}

TEST(HostRates, FirstReadingHasInstantValuesButNoRates) {
  HostReading r = reading_at(1, 100, 100);
  r.cpu_pressure = Pressure{PressureLine{12.5, 1, 1, 10}, std::nullopt};
  const HostSample s = host_sample_of(std::nullopt, r);
  EXPECT_FALSE(s.interval_s);
  EXPECT_FALSE(s.cpu_busy_percent);
  EXPECT_FALSE(s.net_rx_bytes_per_s);
  EXPECT_FALSE(s.disk_read_bytes_per_s);
  EXPECT_FALSE(s.swap_in_pages_per_s);
  ASSERT_EQ(s.cores.size(), 1u);
  EXPECT_FALSE(s.cores[0].busy_percent);
  EXPECT_EQ(s.cpu_pressure_some_percent, 12.5);
  EXPECT_EQ(s.memory_available_percent, 25.0);
  EXPECT_EQ(s.swap_used_bytes, 0u);
}

TEST(HostRates, TwoReadingsGiveSharesAndRates) {
  HostReading before = reading_at(10, 100, 100);
  HostReading after = reading_at(10.5, 130, 170);  // 30 busy of 100 ticks
  after.cpu->total->iowait = 10;                    // 10 more ticks: 110 in all
  after.cpu->total->steal = 0;
  after.swap = SwapCounters{50, 100};
  after.disks = std::vector<DiskCounters>{{"vda", 1000, 2000, 250}};
  after.interfaces = std::vector<InterfaceCounters>{{"eth0", 500, 1000}, {"eth1", 1500, 0}};
  after.ib_ports = {{"mlx5_0", "1", 4000, 8000, 10, 20}};
  before.ib_ports = {{"mlx5_0", "1", 0, 0, 0, 0}};
  const HostSample s = host_sample_of(before, after);
  ASSERT_TRUE(s.interval_s);
  EXPECT_DOUBLE_EQ(*s.interval_s, 0.5);
  EXPECT_NEAR(*s.cpu_busy_percent, 100.0 * 30 / 110, 1e-9);
  EXPECT_NEAR(*s.cpu_iowait_percent, 100.0 * 10 / 110, 1e-9);
  EXPECT_EQ(s.cpu_steal_percent, 0.0);
  EXPECT_EQ(s.swap_in_pages_per_s, 100.0);
  EXPECT_EQ(s.swap_out_pages_per_s, 200.0);
  EXPECT_EQ(s.disk_read_bytes_per_s, 1000.0 * 512 / 0.5);
  EXPECT_EQ(s.disk_write_bytes_per_s, 2000.0 * 512 / 0.5);
  EXPECT_EQ(s.disk_busy_percent, 50.0);  // 250 ms busy in 500 ms
  EXPECT_EQ(s.net_rx_bytes_per_s, 4000.0);  // (500 + 1500) / 0.5
  EXPECT_EQ(s.net_tx_bytes_per_s, 2000.0);
  EXPECT_EQ(s.ib_rx_bytes_per_s, 8000.0);
  EXPECT_EQ(s.ib_tx_bytes_per_s, 16000.0);
  ASSERT_EQ(s.ib_ports.size(), 1u);
  EXPECT_EQ(s.ib_ports[0].tx_packets_per_s, 40.0);
}

TEST(HostRates, AbsentStaysAbsent) {
  HostReading before = reading_at(0, 100, 100);
  HostReading after = reading_at(1, 200, 200);
  before.cpu->total->steal.reset();  // an old kernel: no steal column
  after.cpu->total->steal.reset();
  after.interfaces = std::vector<InterfaceCounters>{{"eth0", 0, 0}, {"eth1", 0, 0}, {"eth2", 7, 7}};  // came up meanwhile
  const HostSample s = host_sample_of(before, after);
  EXPECT_TRUE(s.cpu_busy_percent);
  EXPECT_FALSE(s.cpu_steal_percent);
  EXPECT_FALSE(s.cpu_pressure_some_percent);  // no PSI: absent, never 0
  EXPECT_FALSE(s.io_pressure_some_percent);
  EXPECT_FALSE(s.ib_rx_bytes_per_s);           // no InfiniBand
  ASSERT_EQ(s.interfaces.size(), 3u);
  EXPECT_FALSE(s.interfaces[2].rx_bytes_per_s);
  EXPECT_EQ(s.net_rx_bytes_per_s, 0.0);  // the two known interfaces were quiet
}

TEST(HostRates, ACounterThatWentBackGivesNoRate) {
  HostReading before = reading_at(0, 100, 100);
  HostReading after = reading_at(1, 200, 200);
  before.interfaces = std::vector<InterfaceCounters>{{"eth0", 5000, 5000}};
  after.interfaces = std::vector<InterfaceCounters>{{"eth0", 10, 6000}};  // rx reset (driver reload)
  before.disks = std::vector<DiskCounters>{{"vda", 10, 10, std::nullopt}};
  after.disks = std::vector<DiskCounters>{{"vda", 20, 20, std::nullopt}};
  const HostSample s = host_sample_of(before, after);
  EXPECT_FALSE(s.net_rx_bytes_per_s);
  EXPECT_EQ(s.net_tx_bytes_per_s, 1000.0);
  EXPECT_FALSE(s.disk_busy_percent);  // no io_ticks column
  EXPECT_EQ(s.disk_read_bytes_per_s, 5120.0);
}

TEST(HostRates, NoTimeBetweenReadingsGivesNoRates) {
  const HostSample s = host_sample_of(reading_at(1, 100, 100), reading_at(1, 100, 100));
  EXPECT_FALSE(s.interval_s);
  EXPECT_FALSE(s.cpu_busy_percent);
}

}  // namespace host_rates_test
}  // namespace gpuwatch::host_signals
