// The simulated host (`host: signals:`, sim/engine/host_signal_tree.hpp) read back by the real
// host-signal parsers (host_signals::HostSampler over RootedHostFiles): two renders some time
// apart give the scenario's values as rates, in and out of GPU 0's gaps; workers come and go;
// the parser's errors name file, line and key; each built-in host scenario tells its story.
#include "sim/engine/host_signal_tree.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdlib.h>

#include "host_signals/host_files.hpp"
#include "host_signals/host_sampler.hpp"
#include "sim/engine/scenario_loader.hpp"

namespace gpuwatch::sim {
namespace host_signal_tree_test {

namespace fs = std::filesystem;
using host_signals::HostSample;
using host_signals::HostSampler;

constexpr unsigned kRootPid = 777001;

// time_scale 2: 60 scenario seconds are 30 wall seconds, and the rates are per wall second.
constexpr const char* kYaml = R"(
time_scale: 2
gpus:
  - model: H100 SXM 80GB
    phases: [{kind: dataloader_starvation, duration: 10m, busy: 5s, idle: 3s, ramp: 0}]
    processes: [{command: "/usr/bin/python3 train.py", user: u, memory: 1000, pid: 777001}]
host:
  signals:
    cores: 4
    memory_gib: 64
    swap_gib: 16
    disks: [nvme0n1, sda]
    interfaces: [eth0, eth1]
    infiniband: [{device: mlx5_0, ports: 2}, mlx5_1]
    phases:
      - duration: 10m
        cpu_busy: 60
        cpu_iowait: 10
        cpu_steal: 2
        cpu_pressure: 25
        memory_pressure: 12
        memory_pressure_full: 4
        io_pressure: 30
        io_pressure_full: 10
        process_cpu: 0.5
        workers: 3
        worker_cpu: 0.8
        disk_read: 200M
        disk_write: 50M
        disk_busy: 70
        net_rx: 10M
        net_tx: 5M
        ib_rx: 2G
        ib_tx: 1G
        memory_used: 80
        swap_used: 25
        swap_in: 100
        swap_out: 300
        gaps: {net_rx: 1G, ib_tx: 3G}
      - duration: 2m
        workers: 1
        worker_cpu: 0.5
)";

struct Fixture : ::testing::Test {
  fs::path root;
  std::unique_ptr<Simulation> sim;
  std::unique_ptr<HostSignalTree> tree;
  std::unique_ptr<HostSampler> sampler;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double time_scale = 2;

  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "host-signal-tree-XXXXXX").string();
    root = ::mkdtemp(pattern.data());
    auto sc = parse_scenario(kYaml, "test.yaml", "");
    ASSERT_TRUE(sc) << sc.error().message;
    sim = std::make_unique<Simulation>(std::move(*sc), PidSources{});
    tree = std::make_unique<HostSignalTree>(*sim, root, 1'700'000'000'000);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  // Renders scenario time T and samples it (steady time: T's wall seconds), with the GPU process as root.
  HostSample read_at(double t) {
    auto done = tree->render_at(t);
    EXPECT_TRUE(done) << done.error().message;
    if (!sampler) sampler = std::make_unique<HostSampler>(std::make_shared<host_signals::RootedHostFiles>(root.string()));
    const auto at = start + std::chrono::microseconds(static_cast<long long>(t / time_scale * 1e6));
    return sampler->sample(at, {kRootPid});
  }
  // The rates between scenario times T0 and T1.
  HostSample between(double t0, double t1) {
    read_at(t0);
    return read_at(t1);
  }
};

void expect_near_share(const std::optional<double>& got, double want, double share, const char* what) {
  ASSERT_TRUE(got.has_value()) << what;
  EXPECT_NEAR(*got, want, std::max(1e-9, want * share)) << what;
}

using SimHostSignalTree = Fixture;

TEST_F(SimHostSignalTree, TwoReadsGiveTheScenarioValues) {
  // 100 s .. 164 s: 8 whole cycles of GPU 0 (5 s busy, 3 s gap), all in the first host phase.
  const HostSample s = between(100, 164);
  ASSERT_TRUE(s.interval_s.has_value());
  EXPECT_NEAR(*s.interval_s, 32, 1e-6);
  // CPU from /proc/stat: ticks of 10 ms on 4 cores over 32 s.
  expect_near_share(s.cpu_busy_percent, 60, 0.01, "cpu busy");
  expect_near_share(s.cpu_iowait_percent, 10, 0.01, "iowait");
  expect_near_share(s.cpu_steal_percent, 2, 0.02, "steal");
  ASSERT_EQ(s.cores.size(), 4u);
  expect_near_share(s.cores[3].busy_percent, 60, 0.01, "core 3");
  // PSI avg10, from the 10 s before.
  expect_near_share(s.cpu_pressure_some_percent, 25, 0.001, "cpu PSI");
  expect_near_share(s.memory_pressure_some_percent, 12, 0.001, "memory PSI some");
  expect_near_share(s.memory_pressure_full_percent, 4, 0.001, "memory PSI full");
  expect_near_share(s.io_pressure_some_percent, 30, 0.001, "io PSI some");
  expect_near_share(s.io_pressure_full_percent, 10, 0.001, "io PSI full");
  // Memory and swap.
  expect_near_share(s.memory_available_percent, 20, 0.001, "memory available");
  ASSERT_TRUE(s.memory_total_bytes && s.swap_total_bytes && s.swap_used_bytes);
  EXPECT_EQ(*s.memory_total_bytes, 64ull << 30);
  EXPECT_EQ(*s.swap_total_bytes, 16ull << 30);
  EXPECT_NEAR(static_cast<double>(*s.swap_used_bytes), 4.0 * (1ull << 30), 4096);
  expect_near_share(s.swap_in_pages_per_s, 100, 0.01, "swap in");
  expect_near_share(s.swap_out_pages_per_s, 300, 0.01, "swap out");
  // Disks: the sum over both, each busy 70 %.
  expect_near_share(s.disk_read_bytes_per_s, 200e6, 0.001, "disk read");
  expect_near_share(s.disk_write_bytes_per_s, 50e6, 0.001, "disk write");
  expect_near_share(s.disk_busy_percent, 70, 0.001, "disk busy");
  EXPECT_EQ(s.disks.size(), 2u);
  // Network and InfiniBand: the gaps' values for 3 s of every 8.
  expect_near_share(s.net_rx_bytes_per_s, (5 * 10e6 + 3 * 1e9) / 8, 0.001, "net rx");
  expect_near_share(s.net_tx_bytes_per_s, 5e6, 0.001, "net tx");
  ASSERT_EQ(s.interfaces.size(), 2u);  // lo left out
  expect_near_share(s.ib_rx_bytes_per_s, 2e9, 0.001, "ib rx");
  expect_near_share(s.ib_tx_bytes_per_s, (5 * 1e9 + 3 * 3e9) / 8, 0.001, "ib tx");
  EXPECT_EQ(s.ib_ports.size(), 3u);
  // The GPU process and its three workers: 0.5 + 3 x 0.8 cores.
  ASSERT_EQ(s.process_trees.size(), 1u);
  EXPECT_EQ(s.process_trees[0].pid, kRootPid);
  EXPECT_EQ(s.process_trees[0].processes, 4u);
  expect_near_share(s.process_trees[0].cpu_cores, 2.9, 0.01, "process tree CPU");
}

TEST_F(SimHostSignalTree, GapValuesHoldWhileGpuZeroSitsInItsGap) {
  // Cycle 20 starts at 160 s: busy 160-165, gap 165-168.
  const HostSample gap = between(165.5, 167.5);
  expect_near_share(gap.net_rx_bytes_per_s, 1e9, 0.001, "net rx in the gap");
  expect_near_share(gap.ib_tx_bytes_per_s, 3e9, 0.001, "ib tx in the gap");
  expect_near_share(gap.disk_read_bytes_per_s, 200e6, 0.001, "disk read in the gap (no override)");
  const HostSample busy = read_at(172);  // 168 .. 172: busy again (2 s of interval at time scale 2... 4 scenario s)
  expect_near_share(busy.net_rx_bytes_per_s, (0.5 * 1e9 + 4 * 10e6) / 4.5, 0.001, "net rx from the gap into the busy part");
  const HostSample busy_only = read_at(173);
  expect_near_share(busy_only.net_rx_bytes_per_s, 10e6, 0.001, "net rx while busy");
}

TEST_F(SimHostSignalTree, WorkersComeAndGoWithThePhases) {
  read_at(590);
  const fs::path children = root / "proc" / std::to_string(kRootPid) / "task" / std::to_string(kRootPid) / "children";
  std::ifstream in(children);
  std::stringstream before;
  before << in.rdbuf();
  int count = 0;
  for (std::istringstream words(before.str()); words >> std::ws && !words.eof();) {
    unsigned pid = 0;
    words >> pid;
    ++count;
    EXPECT_TRUE(fs::exists(root / "proc" / std::to_string(pid) / "stat")) << pid;
  }
  EXPECT_EQ(count, 3) << before.str();
  // The second host phase (600 s .. 720 s) has one worker at 0.5 core: the two others are gone.
  read_at(650);
  const HostSample s = read_at(690);
  ASSERT_EQ(s.process_trees.size(), 1u);
  EXPECT_EQ(s.process_trees[0].processes, 2u);
  expect_near_share(s.process_trees[0].cpu_cores, 1.5, 0.01, "the process (1 core, the fallback) + one worker");
  std::size_t folders = 0;
  for (const auto& entry : fs::directory_iterator(root / "proc"))
    if (entry.is_directory() && entry.path().filename() != "pressure" && entry.path().filename() != "net") ++folders;
  EXPECT_EQ(folders, 2u);
  // The host phases loop with the GPUs' clock: 720 s + 100 s is the first phase again.
  read_at(820);
  const HostSample again = read_at(884);
  EXPECT_EQ(again.process_trees[0].processes, 4u);
  expect_near_share(again.cpu_busy_percent, 60, 0.01, "cpu busy after the loop");
}

TEST_F(SimHostSignalTree, CountersNeverGoBackAndTheSamplerTakesTheSimulatedRoot) {
  EXPECT_EQ(host_signals::host_signals_root(root.string()), "/");  // nothing rendered yet: the real host
  read_at(10);
  EXPECT_EQ(host_signals::host_signals_root(root.string()), root.string());
  auto read_text = [&](const char* relative) {
    std::ifstream in(root / relative);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  const std::string stat1 = read_text("proc/stat");
  read_at(10.001);
  read_at(11);
  const std::string stat2 = read_text("proc/stat");
  unsigned long long user1 = 0, user2 = 0;
  ASSERT_EQ(std::sscanf(stat1.c_str(), "cpu %llu", &user1), 1) << stat1;
  ASSERT_EQ(std::sscanf(stat2.c_str(), "cpu %llu", &user2), 1) << stat2;
  EXPECT_GT(user2, user1);
  // No temporary file is left behind.
  for (const auto& entry : fs::recursive_directory_iterator(root))
    EXPECT_EQ(entry.path().extension(), entry.path().extension() == ".tmp" ? ".none" : entry.path().extension()) << entry.path();
}

TEST(SimHostSignalsParser, ErrorsNameFileLineAndKey) {
  const std::string head = "gpus: [{model: H100}]\nhost:\n  signals:\n";
  auto error_of = [&](const std::string& body) {
    auto sc = parse_scenario(head + body, "s.yaml", "");
    EXPECT_FALSE(sc) << body;
    return sc ? std::string() : sc.error().message;
  };
  EXPECT_NE(error_of("    phases:\n      - {duration: 10, cpu_bsy: 3}\n").find("s.yaml:5: key 'cpu_bsy': unknown key in a host phase"),
            std::string::npos);
  EXPECT_NE(error_of("    cors: 4\n    phases: [{duration: 10}]\n").find("s.yaml:4: key 'cors'"), std::string::npos);
  EXPECT_NE(error_of("    phases:\n      - {duration: 10, workers: 1.5}\n").find("key 'workers': expected a whole number"),
            std::string::npos);
  EXPECT_NE(error_of("    phases:\n      - {duration: 10, cpu_busy: 80, cpu_iowait: 30}\n").find("at most 100"), std::string::npos);
  EXPECT_NE(error_of("    phases:\n      - {duration: 10, disk_read: 5X}\n").find("key 'disk_read': expected bytes per second"),
            std::string::npos);
  EXPECT_NE(error_of("    phases:\n      - {duration: 10, io_pressure: 5, io_pressure_full: 9}\n").find("key 'io_pressure_full'"),
            std::string::npos);
  EXPECT_NE(error_of("    phases:\n      - {duration: 10, gaps: {net_rx: -1}}\n").find("key 'net_rx'"), std::string::npos);
  EXPECT_NE(error_of("    interfaces: [lo]\n    phases: [{duration: 10}]\n").find("key 'interfaces'"), std::string::npos);
  EXPECT_NE(error_of("    disks: [../etc]\n    phases: [{duration: 10}]\n").find("key 'disks'"), std::string::npos);
  EXPECT_NE(error_of("    cores: 4\n").find("key 'phases'"), std::string::npos);
  auto ok = parse_scenario(head + "    phases:\n      - {duration: 1m, net_rx: 1.5G, disk_read: 64k, gaps: {net_rx: 0}}\n", "s.yaml", "");
  ASSERT_TRUE(ok) << ok.error().message;
  const HostPhase& ph = ok->host.signals->phases[0];
  EXPECT_EQ(host_value(ph.values, HostValue::NetRx), 1.5e9);
  EXPECT_EQ(host_value(ph.values, HostValue::DiskRead), 64e3);
  EXPECT_EQ(host_value(ph.gap_values, HostValue::NetRx), 0);
  EXPECT_EQ(host_value(ph.gap_values, HostValue::DiskRead), 64e3);
  EXPECT_EQ(host_value(ph.values, HostValue::MemoryUsed), 20);  // the table's fallback
  EXPECT_FALSE(parse_scenario("gpus: [{model: H100}]\n", "s.yaml", "")->host.signals.has_value());
}

// Each built-in host scenario, read as gpuwatch reads it: the signal its story is about stands out.
HostSample builtin_rates(const std::string& name, double t0, double t1) {
  auto sc = load_scenario(name);
  EXPECT_TRUE(sc) << name;
  if (!sc) return {};
  EXPECT_TRUE(sc->host.signals.has_value()) << name;
  EXPECT_EQ(sc->host.signals->cycle_s(), 240) << name << ": the host's phases loop with the GPUs'";
  PidSources pids;
  pids.standins[{0, 0}] = kRootPid;
  Simulation sim(std::move(*sc), pids);
  std::string pattern = (fs::temp_directory_path() / "host-builtin-XXXXXX").string();
  const fs::path root = ::mkdtemp(pattern.data());
  HostSignalTree tree(sim, root, 0);
  EXPECT_TRUE(tree.render_at(t0));  // before the sampler is made: it lists the InfiniBand devices once
  HostSampler sampler(std::make_shared<host_signals::RootedHostFiles>(root.string()));
  const auto start = std::chrono::steady_clock::now();
  sampler.sample(start, {kRootPid});
  EXPECT_TRUE(tree.render_at(t1));
  const HostSample s = sampler.sample(start + std::chrono::milliseconds(static_cast<long long>((t1 - t0) * 1000)), {kRootPid});
  std::error_code ec;
  fs::remove_all(root, ec);
  return s;
}

TEST(SimHostScenarios, EachTellsItsStory) {
  const HostSample cpu = builtin_rates("host_cpu_bound", 40, 80);
  EXPECT_GE(cpu.cpu_busy_percent.value_or(0), 90);
  EXPECT_LT(cpu.cpu_iowait_percent.value_or(100), 10);
  ASSERT_EQ(cpu.process_trees.size(), 1u);
  EXPECT_GE(cpu.process_trees[0].cpu_cores.value_or(0), 7.5);
  EXPECT_EQ(cpu.process_trees[0].processes, 8u);

  const HostSample io = builtin_rates("host_io_bound", 40, 80);
  EXPECT_GE(io.cpu_iowait_percent.value_or(0), 50);
  EXPECT_GE(io.io_pressure_some_percent.value_or(0), 30);
  EXPECT_GE(io.disk_busy_percent.value_or(0), 90);
  EXPECT_LT(io.cpu_busy_percent.value_or(100), 25);

  // 46 s .. 48 s: a dip of the 6 s busy, 2 s idle cycle; 40 .. 46: busy.
  const HostSample dip = builtin_rates("host_comm_bound", 46, 48);
  const HostSample work = builtin_rates("host_comm_bound", 40, 46);
  EXPECT_GE(dip.ib_rx_bytes_per_s.value_or(0), 10 * work.ib_rx_bytes_per_s.value_or(1e18));
  EXPECT_LT(dip.cpu_busy_percent.value_or(100), 50);
  EXPECT_LT(dip.io_pressure_some_percent.value_or(100), 5);

  const HostSample idle = builtin_rates("host_kernel_bound", 40, 80);
  EXPECT_LT(idle.cpu_busy_percent.value_or(100), 10);
  EXPECT_LT(idle.disk_busy_percent.value_or(100), 5);

  const HostSample swap = builtin_rates("host_swapping", 40, 80);
  EXPECT_GE(swap.swap_in_pages_per_s.value_or(0) + swap.swap_out_pages_per_s.value_or(0), 1000);
  EXPECT_GE(swap.memory_pressure_some_percent.value_or(0), 10);
  EXPECT_LT(swap.memory_available_percent.value_or(100), 5);
  EXPECT_LT(swap.cpu_iowait_percent.value_or(100), 10);
}

}  // namespace host_signal_tree_test
}  // namespace gpuwatch::sim
