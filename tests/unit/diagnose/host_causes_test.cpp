// The host causes (issue 25): hand-made snapshots at 1 s carrying a host sample (1 s means, as the
// live collector and the history attach them). input_starved names its cause (cpu_bound, io_bound,
// unknown) with advice that follows it; a job's GPUs dipping together while InfiniBand is busy in
// the dips is comm_bound, not starvation; swapping is host_memory_pressure; low_utilization says
// whether the host was idle too. Without host samples every check is what it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "diagnose/diagnoser.hpp"
#include "diagnose/kinds.hpp"
#include "host_signals/host_sample.hpp"
#include "scoring.hpp"
#include "snapshot_builder.hpp"

namespace gpuwatch::diagnose::testing {
namespace host_causes_test {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// The host during one second (percent and per-second rates, as host_signals gives them).
struct Host {
  double cpu_busy = 10, iowait = 0, cpu_psi = 0, io_psi = 0, mem_some = 0, mem_full = 0, disk_busy = 5;
  double swap_in = 0, swap_out = 0, net = 1e6;
  std::optional<double> ib;
  std::optional<double> tree_cores;  // the GPU processes' trees (each), with TREE_PROCESSES processes
  std::size_t tree_processes = 5;
};

struct Gpu {
  double util = 0.95;
  bool buffer = false;        // the driver's sample buffer read (idle share and gaps of the second)
  bool gap_starts = false;    // a gap began in this second (the buffer's idle_gaps)
  std::optional<double> power_w;  // else 150 W + 450 W x utilization
};

std::shared_ptr<const host_signals::HostSample> host_sample(double t, const Host& h, unsigned gpus) {
  auto s = std::make_shared<host_signals::HostSample>();
  s->timestamp = at_s(t);
  s->interval_s = 1.0;
  s->cpu_busy_percent = h.cpu_busy;
  s->cpu_iowait_percent = h.iowait;
  s->cpu_pressure_some_percent = h.cpu_psi;
  s->io_pressure_some_percent = h.io_psi;
  s->memory_pressure_some_percent = h.mem_some;
  s->memory_pressure_full_percent = h.mem_full;
  s->disk_busy_percent = h.disk_busy;
  s->swap_in_pages_per_s = h.swap_in;
  s->swap_out_pages_per_s = h.swap_out;
  s->net_rx_bytes_per_s = h.net / 2;
  s->net_tx_bytes_per_s = h.net / 2;
  if (h.ib) {
    s->ib_rx_bytes_per_s = *h.ib / 2;
    s->ib_tx_bytes_per_s = *h.ib / 2;
  }
  if (h.tree_cores)
    for (unsigned g = 0; g < gpus; ++g) s->process_trees.push_back({100 + g, h.tree_cores, h.tree_processes});
  return s;
}

// N GPUs, each with one "python" process (PID 100 + index): one job by its name.
core::Snapshot snapshot(double t, const std::vector<Gpu>& gpus, const std::optional<Host>& host) {
  core::Snapshot s;
  for (unsigned g = 0; g < gpus.size(); ++g) {
    GpuValues v{.util = gpus[g].util, .power_w = gpus[g].power_w.value_or(150 + 450 * gpus[g].util), .used_bytes = 40 * kGiB,
                .process_bytes = 40 * kGiB};
    core::Snapshot one = make_snapshot(t, v, g);
    if (gpus[g].buffer) {
      auto& d = one.devices.front();
      d.get(core::FieldId::UtilizationGpuIdleShare) = core::FieldReading::of(gpus[g].util < 0.05 ? 1.0 : 0.0);
      d.get(core::FieldId::UtilizationGpuIdleGaps) = core::FieldReading::of(gpus[g].gap_starts ? 1.0 : 0.0);
    }
    if (g == 0) s = std::move(one);
    else s.devices.push_back(std::move(one.devices.front()));
  }
  s.device_count = static_cast<unsigned>(gpus.size());
  if (host) s.host = host_sample(t, *host, s.device_count);
  return s;
}

// A step of 10 s: 7 s of work, a 3 s gap (the GPU waits for its batch).
bool in_gap(double t) { return std::fmod(t, 10.0) >= 7; }

using HostAt = std::function<std::optional<Host>(double t, bool gap)>;

// SECONDS of N GPUs with the step's gaps (all together), the host from HOST_AT, into a Diagnoser.
std::vector<Finding> run(const HostAt& host_at, double seconds, unsigned n = 1, bool buffer = false,
                         double step_s = 1) {
  Diagnoser d;
  for (double t = 0; t < seconds; t += step_s) {
    const bool gap = in_gap(t);
    std::vector<Gpu> gpus(n, Gpu{gap ? 0.0 : 0.95, buffer, gap && !in_gap(t - step_s)});
    d.observe(snapshot(t, gpus, host_at(t, gap)));
  }
  return d.all_findings();
}

std::vector<Finding> of_kind(const std::vector<Finding>& fs, const std::string& kind) {
  std::vector<Finding> out;
  std::copy_if(fs.begin(), fs.end(), std::back_inserter(out), [&](const Finding& f) { return f.kind == kind; });
  return out;
}

bool advice_says(const Finding& f, const std::string& words) {
  return std::any_of(f.advice.begin(), f.advice.end(), [&](const std::string& a) { return a.find(words) != std::string::npos; });
}

// The job's DataLoader workers saturated (4 workers, 3.9 cores) on a big host otherwise mostly idle.
std::optional<Host> cpu_bound_host(double, bool) {
  Host h;
  h.cpu_busy = 35;
  h.tree_cores = 3.9;
  h.tree_processes = 5;
  return h;
}

TEST(DiagnoseHostCauses, CpuBoundGapsNameCpuBoundWithItsAdvice) {
  for (bool buffer : {false, true}) {
    const auto fs = run(cpu_bound_host, 900, 1, buffer);
    const auto starved = of_kind(fs, "input_starved");
    ASSERT_EQ(starved.size(), 1u) << (buffer ? "buffer\n" : "readings\n") << listing(fs);
    const Finding& f = starved.front();
    EXPECT_EQ(f.severity, Severity::Warning);
    EXPECT_EQ(f.cause, "cpu_bound");
    EXPECT_EQ(f.evidence.at("cause_code"), 1.0);
    EXPECT_NEAR(f.evidence.at("worker_saturation_ratio_gaps"), 0.975, 0.01);
    EXPECT_NEAR(f.evidence.at("host_cpu_busy_ratio_gaps"), 0.35, 0.01);
    EXPECT_NE(f.summary.find("cpu_bound"), std::string::npos) << f.summary;
    EXPECT_NE(f.detail.find("cause cpu_bound"), std::string::npos) << f.detail;
    EXPECT_NE(f.summary.find("workers"), std::string::npos) << f.summary;
    EXPECT_TRUE(advice_says(f, "num_workers"));
    EXPECT_TRUE(advice_says(f, "DALI"));
    EXPECT_FALSE(advice_says(f, "WebDataset"));
    EXPECT_TRUE(of_kind(fs, "comm_bound").empty());
    EXPECT_TRUE(of_kind(fs, "low_utilization").empty());
  }
}

// All cores busy (no process trees read) names cpu_bound too: SageMaker's CPUBottleneck 90 %.
TEST(DiagnoseHostCauses, AllCoresBusyIsCpuBoundWithoutTrees) {
  const auto fs = run([](double, bool) { return std::optional<Host>(Host{.cpu_busy = 96}); }, 600);
  const auto starved = of_kind(fs, "input_starved");
  ASSERT_EQ(starved.size(), 1u) << listing(fs);
  EXPECT_EQ(starved.front().cause, "cpu_bound");
  EXPECT_EQ(starved.front().evidence.count("worker_saturation_ratio_gaps"), 0u);
}

TEST(DiagnoseHostCauses, IoBoundGapsNameIoBoundWithItsAdvice) {
  auto io_host = [](double, bool) {
    Host h;
    h.cpu_busy = 12;
    h.iowait = 20;  // below SageMaker's 50 % on a big host: the pressure and the disk say it
    h.io_psi = 65;
    h.disk_busy = 99;
    h.tree_cores = 0.6;
    return std::optional<Host>(h);
  };
  const auto fs = run(io_host, 900);
  const auto starved = of_kind(fs, "input_starved");
  ASSERT_EQ(starved.size(), 1u) << listing(fs);
  const Finding& f = starved.front();
  EXPECT_EQ(f.cause, "io_bound");
  EXPECT_EQ(f.evidence.at("cause_code"), 2.0);
  EXPECT_NEAR(f.evidence.at("host_io_pressure_ratio_gaps"), 0.65, 0.01);
  EXPECT_NE(f.summary.find("io_bound"), std::string::npos) << f.summary;
  EXPECT_NE(f.summary.find("I/O pressure 65 %"), std::string::npos) << f.summary;
  EXPECT_TRUE(advice_says(f, "WebDataset"));
  EXPECT_TRUE(advice_says(f, "page cache"));
  EXPECT_FALSE(advice_says(f, "DALI"));
}

// No host samples: the finding is what it always was (unknown cause, the default advice, the old words).
TEST(DiagnoseHostCauses, StarvationWithoutHostIsUnknownWithTheOldAdvice) {
  const auto fs = run([](double, bool) { return std::optional<Host>(); }, 900);
  const auto starved = of_kind(fs, "input_starved");
  ASSERT_EQ(starved.size(), 1u) << listing(fs);
  const Finding& f = starved.front();
  EXPECT_EQ(f.cause, "unknown");
  EXPECT_EQ(f.advice, default_advice(Kind::InputStarved));
  EXPECT_EQ(f.evidence.count("cause_code"), 0u);
  EXPECT_EQ(f.evidence.size(), 6u);  // idle_ratio busy_ratio gaps typical_gap_s window_s sample_buffer
  EXPECT_TRUE(f.summary.ends_with("(data loader?)")) << f.summary;
  EXPECT_EQ(fs.size(), 1u) << listing(fs);
}

// Host samples where nothing stands out: unknown, said so, with the default advice.
TEST(DiagnoseHostCauses, QuietHostLeavesTheCauseUnknown) {
  const auto fs = run([](double, bool) { return std::optional<Host>(Host{.cpu_busy = 30, .iowait = 2}); }, 900);
  const auto starved = of_kind(fs, "input_starved");
  ASSERT_EQ(starved.size(), 1u) << listing(fs);
  EXPECT_EQ(starved.front().cause, "unknown");
  EXPECT_EQ(starved.front().evidence.at("cause_code"), 0.0);
  EXPECT_NE(starved.front().detail.find("cause unknown"), std::string::npos) << starved.front().detail;
  EXPECT_NE(starved.front().summary.find("(cause unknown)"), std::string::npos) << starved.front().summary;
  EXPECT_EQ(starved.front().advice, default_advice(Kind::InputStarved));
}

// A first host reading (no interval: no rates) counts for nothing.
TEST(DiagnoseHostCauses, HostSamplesWithoutRatesAreLeftOut) {
  Diagnoser d;
  for (double t = 0; t < 900; ++t) {
    const bool gap = in_gap(t);
    auto s = snapshot(t, {Gpu{gap ? 0.0 : 0.95}}, Host{.cpu_busy = 99});
    auto no_rates = std::make_shared<host_signals::HostSample>(*s.host);
    no_rates->interval_s.reset();
    s.host = no_rates;
    d.observe(s);
  }
  const auto starved = of_kind(d.all_findings(), "input_starved");
  ASSERT_EQ(starved.size(), 1u);
  EXPECT_EQ(starved.front().cause, "unknown");
  EXPECT_EQ(starved.front().evidence.count("cause_code"), 0u);
}

// 8 GPUs of one job dip together every step while InfiniBand carries the all-reduce in the dips.
std::optional<Host> comm_host(double, bool gap) {
  Host h;
  h.cpu_busy = 20;
  h.ib = gap ? 6e9 : 2e8;
  h.tree_cores = 1.2;
  return h;
}

TEST(DiagnoseHostCauses, JobDippingTogetherWithInfinibandBusyIsCommBound) {
  for (bool buffer : {false, true}) {
    const auto fs = run(comm_host, 900, 8, buffer);
    const auto comm = of_kind(fs, "comm_bound");
    ASSERT_EQ(comm.size(), 1u) << listing(fs);
    const Finding& f = comm.front();
    EXPECT_EQ(f.severity, Severity::Warning);
    EXPECT_EQ(f.gpus, (std::vector<unsigned>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(f.cause, "network");
    ASSERT_TRUE(f.job.has_value());
    EXPECT_NEAR(f.evidence.at("sync_share_ratio"), 0.3, 0.03);
    EXPECT_NEAR(f.evidence.at("together_ratio"), 1.0, 0.01);
    EXPECT_NEAR(f.evidence.at("ib_bytes_per_s_dips"), 6e9, 1e8);
    EXPECT_NEAR(f.evidence.at("ib_bytes_per_s_outside"), 2e8, 1e7);
    EXPECT_NE(f.summary.find("synchronisation"), std::string::npos) << f.summary;
    EXPECT_NE(f.detail.find("InfiniBand moves 6.00 GB/s in the dips vs 0.20 GB/s outside them"), std::string::npos)
        << f.detail;
    EXPECT_TRUE(advice_says(f, "bucket_cap_mb"));
    EXPECT_TRUE(advice_says(f, "ibstat"));
    // Not starvation (at any severity), not underuse.
    EXPECT_TRUE(of_kind(fs, "input_starved").empty()) << listing(fs);
    EXPECT_TRUE(of_kind(fs, "low_utilization").empty()) << listing(fs);
    EXPECT_EQ(fs.size(), 1u) << listing(fs);
  }
}

// The first reading after each synchronised dip: 100 % busy while the power still ramps up (46 % of
// the limit, the working level 82 %), as the simulator's and real boards' readings have it. A spin
// run opened there ends at the next busy sample back at the working level: no collective_hang.
TEST(DiagnoseHostCauses, SynchronisedDipsWithPowerRampsAreNoHang) {
  Diagnoser d;
  for (double t = 0; t < 900; ++t) {
    const bool gap = in_gap(t), ramp = !gap && in_gap(t - 1);
    std::vector<Gpu> gpus(8, Gpu{gap ? 0.0 : 1.0, true, gap && !in_gap(t - 1)});
    for (auto& g : gpus) g.power_w = gap ? 172.0 : ramp ? 322.0 : 575.0;
    d.observe(snapshot(t, gpus, comm_host(t, gap)));
  }
  const auto fs = d.all_findings();
  EXPECT_TRUE(of_kind(fs, "collective_hang").empty()) << listing(fs);
  EXPECT_TRUE(of_kind(fs, "stuck_kernel").empty()) << listing(fs);
  EXPECT_EQ(of_kind(fs, "comm_bound").size(), 1u) << listing(fs);
  EXPECT_EQ(fs.size(), 1u) << listing(fs);
}

// The same dips with InfiniBand as busy outside them: not synchronisation, the GPUs starve.
TEST(DiagnoseHostCauses, DipsTogetherWithAFlatLinkAreNotCommBound) {
  const auto fs = run([](double, bool) { return std::optional<Host>(Host{.cpu_busy = 20, .ib = 3e9}); }, 900, 8);
  EXPECT_TRUE(of_kind(fs, "comm_bound").empty()) << listing(fs);
  EXPECT_EQ(of_kind(fs, "input_starved").size(), 8u) << listing(fs);
}

// One GPU alone with the network busy in its gaps has no siblings to synchronise with.
TEST(DiagnoseHostCauses, ASingleGpuIsNeverCommBound) {
  const auto fs = run(comm_host, 900, 1);
  EXPECT_TRUE(of_kind(fs, "comm_bound").empty()) << listing(fs);
  EXPECT_EQ(of_kind(fs, "input_starved").size(), 1u) << listing(fs);
}

std::vector<Finding> steady(double util, const std::optional<Host>& host, double seconds = 900) {
  Diagnoser d;
  for (double t = 0; t < seconds; ++t) d.observe(snapshot(t, {Gpu{util}}, host));
  return d.all_findings();
}

TEST(DiagnoseHostCauses, SwappingIsHostMemoryPressure) {
  const auto fs = steady(0.9, Host{.mem_some = 25, .mem_full = 8, .swap_in = 2400, .swap_out = 1600});
  const auto mem = of_kind(fs, "host_memory_pressure");
  ASSERT_EQ(mem.size(), 1u) << listing(fs);
  const Finding& f = mem.front();
  EXPECT_EQ(f.severity, Severity::Warning);
  EXPECT_EQ(f.gpus, std::vector<unsigned>{0});
  EXPECT_EQ(f.cause, "memory");
  EXPECT_NEAR(f.evidence.at("swap_pages_per_s"), 4000, 1);
  EXPECT_NEAR(f.evidence.at("swapping_ratio"), 1.0, 1e-9);
  EXPECT_NEAR(f.evidence.at("memory_pressure_some_ratio"), 0.25, 1e-9);
  EXPECT_NE(f.summary.find("swapping 4000 pages/s"), std::string::npos) << f.summary;
  EXPECT_TRUE(advice_says(f, "num_workers"));
  EXPECT_TRUE(advice_says(f, "add RAM"));
  EXPECT_EQ(fs.size(), 1u) << listing(fs);
}

// Memory stalls alone (PSI, no swap device) are pressure too; a quiet host or no job is none.
TEST(DiagnoseHostCauses, MemoryStallsWithoutSwapAndTheQuietCases) {
  EXPECT_EQ(of_kind(steady(0.9, Host{.mem_some = 30, .mem_full = 12}), "host_memory_pressure").size(), 1u);
  EXPECT_TRUE(steady(0.9, Host{.mem_some = 2, .swap_in = 10}).empty());
  EXPECT_TRUE(steady(0.9, std::nullopt).empty());
  // Swapping while no process holds a GPU: not a job's problem.
  Diagnoser d;
  for (double t = 0; t < 900; ++t) {
    GpuValues v{.util = 0.0, .power_w = 60.0, .used_bytes = 1 * kGiB};
    auto s = make_snapshot(t, v);
    s.host = host_sample(t, Host{.swap_in = 5000, .swap_out = 5000}, 1);
    d.observe(s);
  }
  EXPECT_TRUE(of_kind(d.all_findings(), "host_memory_pressure").empty()) << listing(d.all_findings());
}

TEST(DiagnoseHostCauses, LowUtilizationSaysTheHostWasIdleToo) {
  const auto fs = steady(0.35, Host{.cpu_busy = 4, .tree_cores = 0.3, .tree_processes = 1});
  const auto low = of_kind(fs, "low_utilization");
  ASSERT_EQ(low.size(), 1u) << listing(fs);
  const Finding& f = low.front();
  EXPECT_NEAR(f.evidence.at("host_cpu_busy_ratio"), 0.04, 1e-6);
  EXPECT_EQ(f.evidence.at("host_idle"), 1.0);
  EXPECT_NE(f.summary.find("host idle too: the time goes in the kernels (profile the operators)"), std::string::npos)
      << f.summary;
  EXPECT_NE(f.detail.find("the host was idle too"), std::string::npos) << f.detail;
  EXPECT_EQ(f.cause, "kernel_bound");
  EXPECT_EQ(fs.size(), 1u) << listing(fs);
}

TEST(DiagnoseHostCauses, LowUtilizationWithABusyHostSaysSoAndWithoutHostNothing) {
  const auto busy = of_kind(steady(0.35, Host{.cpu_busy = 95}), "low_utilization");
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_EQ(busy.front().evidence.at("host_idle"), 0.0);
  EXPECT_NE(busy.front().summary.find("host busy"), std::string::npos) << busy.front().summary;
  EXPECT_EQ(busy.front().cause, "cpu_bound");
  const auto bare = of_kind(steady(0.35, std::nullopt), "low_utilization");
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_EQ(bare.front().evidence.count("host_cpu_busy_ratio"), 0u);
  EXPECT_EQ(bare.front().summary.find("host"), std::string::npos) << bare.front().summary;
  EXPECT_EQ(bare.front().cause, "");
}

// A day of a steady CPU-bound loader: one finding, never raised again, its cause kept.
TEST(DiagnoseHostCauses, ADayOfSteadyCpuBoundIsOneFinding) {
  const auto fs = run(cpu_bound_host, 86400, 1, true);
  ASSERT_EQ(fs.size(), 1u) << listing(fs);
  EXPECT_EQ(fs.front().kind, "input_starved");
  EXPECT_EQ(fs.front().cause, "cpu_bound");
  EXPECT_TRUE(fs.front().active);
}

}  // namespace host_causes_test
}  // namespace gpuwatch::diagnose::testing
