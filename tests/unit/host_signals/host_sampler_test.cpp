#include "host_signals/host_sampler.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include "unit/host_signals/fake_host_files.hpp"

namespace gpuwatch::host_signals {
namespace host_sampler_test {

using namespace std::chrono;
using testing_support::FakeHostFiles;

// A 2-CPU host with PSI, a disk with a partition, eth0 and one InfiniBand port.
std::shared_ptr<FakeHostFiles> fake_host() {
  auto f = std::make_shared<FakeHostFiles>();
  f->files["/proc/stat"] = "cpu  100 0 100 800 0 0 0 0 0 0\ncpu0 50 0 50 400 0 0 0 0 0 0\ncpu1 50 0 50 400 0 0 0 0 0 0\n";
  f->files["/proc/pressure/cpu"] = "some avg10=5.00 avg60=1.00 avg300=0.50 total=100\n";
  f->files["/proc/pressure/io"] = "some avg10=2.00 avg60=1.00 avg300=0.50 total=100\nfull avg10=1.00 avg60=1.00 avg300=0.50 total=50\n";
  f->files["/proc/pressure/memory"] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
  f->files["/proc/meminfo"] = "MemTotal: 1000 kB\nMemAvailable: 400 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n";
  f->files["/proc/vmstat"] = "pswpin 0\npswpout 0\n";
  f->files["/proc/diskstats"] =
      " 254 0 vda 10 0 1000 0 10 0 2000 0 0 100 0 0 0 0 0 0 0\n"
      " 254 1 vda1 10 0 1000 0 10 0 2000 0 0 100 0 0 0 0 0 0 0\n";
  f->files["/sys/block/vda/size"] = "100\n";
  f->files["/proc/net/dev"] = "h\nh\n lo: 9 9 0 0 0 0 0 0 9 9 0 0 0 0 0 0\n eth0: 1000 1 0 0 0 0 0 0 2000 2 0 0 0 0 0 0\n";
  f->files["/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data"] = "250\n";
  f->files["/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_data"] = "500\n";
  f->files["/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_packets"] = "1\n";
  f->files["/sys/class/infiniband/mlx5_0/ports/1/counters/port_xmit_packets"] = "2\n";
  return f;
}

TEST(HostSampler, ReadsEverySourceUnderTheRoot) {
  auto files = fake_host();
  HostSampler sampler(files);
  const HostReading r = sampler.read();
  ASSERT_TRUE(r.cpu);
  EXPECT_EQ(r.cpu->cores.size(), 2u);
  ASSERT_TRUE(r.io_pressure && r.io_pressure->full);
  EXPECT_EQ(r.io_pressure->full->avg10_percent, 1.0);
  ASSERT_TRUE(r.disks);
  ASSERT_EQ(r.disks->size(), 1u);  // the partition left out
  EXPECT_EQ((*r.disks)[0].name, "vda");
  ASSERT_TRUE(r.interfaces);
  ASSERT_EQ(r.interfaces->size(), 1u);
  ASSERT_EQ(r.ib_ports.size(), 1u);
  EXPECT_EQ(r.ib_ports[0].rx_bytes, 1000u);  // 250 words of 4 bytes
  EXPECT_EQ(r.ib_ports[0].tx_bytes, 2000u);
  EXPECT_EQ(r.ib_ports[0].tx_packets, 2u);
}

TEST(HostSampler, TurnsTheSecondReadingIntoRates) {
  auto files = fake_host();
  HostSampler sampler(files);
  const auto t0 = steady_clock::now();
  const HostSample first = sampler.sample(t0);
  EXPECT_FALSE(first.cpu_busy_percent);
  EXPECT_EQ(first.cpu_pressure_some_percent, 5.0);
  EXPECT_EQ(first.memory_available_percent, 40.0);
  EXPECT_TRUE(sampler.primed());
  files->files["/proc/stat"] = "cpu  175 0 125 900 0 0 0 0 0 0\ncpu0 100 0 75 425 0 0 0 0 0 0\ncpu1 75 0 50 475 0 0 0 0 0 0\n";
  files->files["/proc/net/dev"] = "h\nh\n eth0: 3000 1 0 0 0 0 0 0 2000 2 0 0 0 0 0 0\n";
  files->files["/sys/class/infiniband/mlx5_0/ports/1/counters/port_rcv_data"] = "500\n";
  const HostSample second = sampler.sample(t0 + seconds(2));
  ASSERT_TRUE(second.cpu_busy_percent);
  EXPECT_DOUBLE_EQ(*second.cpu_busy_percent, 50.0);  // 100 busy of 200 ticks
  ASSERT_EQ(second.cores.size(), 2u);
  EXPECT_DOUBLE_EQ(*second.cores[0].busy_percent, 75.0);  // 75 busy of 100 ticks
  EXPECT_DOUBLE_EQ(*second.cores[1].busy_percent, 100.0 * 25 / 100);
  EXPECT_EQ(second.net_rx_bytes_per_s, 1000.0);
  EXPECT_EQ(second.net_tx_bytes_per_s, 0.0);
  EXPECT_EQ(second.ib_rx_bytes_per_s, 500.0);  // 250 words in 2 s
}

TEST(HostSampler, AKernelWithoutPsiOrInfinibandLeavesThemAbsent) {
  auto files = fake_host();
  for (auto it = files->files.begin(); it != files->files.end();)
    it = it->first.find("pressure") != std::string::npos || it->first.find("infiniband") != std::string::npos ? files->files.erase(it) : std::next(it);
  files->files["/proc/pressure/cpu"] = "";  // psi=0: the file is there, with nothing in it
  HostSampler sampler(files);
  const auto t0 = steady_clock::now();
  sampler.sample(t0);
  files->files["/proc/stat"] = "cpu  150 0 100 850 0 0 0 0 0 0\n";
  const HostSample s = sampler.sample(t0 + seconds(1));
  EXPECT_FALSE(s.cpu_pressure_some_percent);
  EXPECT_FALSE(s.memory_pressure_some_percent);
  EXPECT_FALSE(s.io_pressure_full_percent);
  EXPECT_FALSE(s.ib_rx_bytes_per_s);
  EXPECT_TRUE(s.ib_ports.empty());
  EXPECT_TRUE(s.cpu_busy_percent);
}

TEST(HostSampler, IsCheapAHandfulOfReads) {
  auto files = fake_host();
  HostSampler sampler(files);
  files->reads = 0;
  sampler.sample();
  EXPECT_LE(files->reads, 8 + 4);  // 8 /proc files, 4 counters of the one InfiniBand port
}

TEST(HostSampler, ADiskAddedLaterIsCountedFromItsFirstReading) {
  // /sys/block is listed again when /proc/diskstats names other devices, not at every reading.
  auto files = fake_host();
  HostSampler sampler(files);
  ASSERT_EQ(sampler.read().disks->size(), 1u);
  files->files["/proc/diskstats"] +=
      " 254 16 vdb 10 0 1000 0 10 0 2000 0 0 100 0 0 0 0 0 0 0\n"
      " 7 0 loop0 1 0 8 0 0 0 0 0 0 1 0 0 0 0 0 0 0\n";
  files->files["/sys/block/vdb/size"] = "100\n";
  const HostReading r = sampler.read();
  ASSERT_TRUE(r.disks);
  ASSERT_EQ(r.disks->size(), 2u);  // vdb counted, loop0 left out
  EXPECT_EQ((*r.disks)[1].name, "vdb");
}

TEST(HostSampler, SampleAfterWaitsForTheRestOfTheWindowOnly) {
  auto files = fake_host();
  HostSampler sampler(files);
  sampler.sample();
  const auto start = steady_clock::now();
  const HostSample s = sampler.sample_after(milliseconds(30));
  ASSERT_TRUE(s.interval_s);
  EXPECT_GE(*s.interval_s, 0.030);
  EXPECT_LT(steady_clock::now() - start, milliseconds(1000));
}

}  // namespace host_sampler_test
}  // namespace gpuwatch::host_signals

namespace gpuwatch::host_signals {
namespace host_sampler_trees_test {

using namespace std::chrono;
using testing_support::FakeHostFiles;

std::string stat_of(unsigned pid, unsigned ppid, unsigned long utime, unsigned long stime) {
  return std::to_string(pid) + " (python) S " + std::to_string(ppid) +
         " 1 1 0 -1 0 0 0 0 0 " + std::to_string(utime) + " " + std::to_string(stime) + " 0 0 20 0 1 0 0 0 0\n";
}

TEST(HostSamplerTrees, GivesEachRootsTreeInCoresOverTheInterval) {
  auto files = host_sampler_test::fake_host();
  files->files["/proc/100/stat"] = stat_of(100, 1, 1000, 0);
  files->files["/proc/100/task/100/children"] = "101 102";
  files->files["/proc/101/stat"] = stat_of(101, 100, 500, 0);
  files->files["/proc/101/task/101/children"] = "";
  files->files["/proc/102/stat"] = stat_of(102, 100, 500, 0);
  files->files["/proc/102/task/102/children"] = "";
  HostSampler sampler(files);
  const auto t0 = steady_clock::now();
  const HostSample first = sampler.sample(t0, {100, 999});
  ASSERT_EQ(first.process_trees.size(), 1u);  // 999 is not alive: left out
  EXPECT_EQ(first.process_trees[0].pid, 100u);
  EXPECT_EQ(first.process_trees[0].processes, 3u);
  EXPECT_FALSE(first.process_trees[0].cpu_cores);  // a first reading has no rate
  // Two workers each one core busy for 2 s, the main process half a core.
  const long hz = sysconf(_SC_CLK_TCK);
  files->files["/proc/100/stat"] = stat_of(100, 1, 1000 + hz, 0);
  files->files["/proc/101/stat"] = stat_of(101, 100, 500 + 2 * hz, 0);
  files->files["/proc/102/stat"] = stat_of(102, 100, 500 + 2 * hz, 0);
  const HostSample second = sampler.sample(t0 + seconds(2), {100});
  ASSERT_EQ(second.process_trees.size(), 1u);
  ASSERT_TRUE(second.process_trees[0].cpu_cores);
  EXPECT_NEAR(*second.process_trees[0].cpu_cores, 2.5, 1e-9);
  // A root not asked for last time starts without a rate again.
  const HostSample third = sampler.sample(t0 + seconds(3), {101});
  ASSERT_EQ(third.process_trees.size(), 1u);
  EXPECT_FALSE(third.process_trees[0].cpu_cores);
}

}  // namespace host_sampler_trees_test
}  // namespace gpuwatch::host_signals
