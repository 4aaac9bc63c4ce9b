// The collector's host thread (issue 25): every published snapshot carries the latest host sample
// (rates from the second reading on, the GPU processes' trees), the history keeps a host ring,
// the diagnosis input carries it, --no-host leaves it out, and a host read that hangs never
// delays the GPUs' samples.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "exporter/prometheus_encoder.hpp"
#include "host_signals/host_fields.hpp"
#include "host_signals/host_files.hpp"
#include "host_signals/host_sample.hpp"
#include "live/collector.hpp"
#include "live/diagnosis_input.hpp"
#include "unit/eventually.hpp"
#include "unit/nvml/fake_nvml.hpp"

namespace gpuwatch::live {
namespace collector_host_test {  // this test file's helpers (unity builds: no clash with another file's)

using namespace std::chrono_literals;
using testing::eventually;

// A host whose counters move at every reading of /proc/stat: 1 tick busy for 3 idle (25 % busy),
// eth0 receiving 1000 bytes per reading; a GPU process 4242 with one worker 4243. Thread-safe
// (the collector's host thread reads while the test looks). While `hang` is set, /proc/stat
// blocks (a stuck read), at most 10 s.
class MovingHost final : public host_signals::HostFiles {
 public:
  std::atomic<bool> hang{false};
  mutable std::atomic<int> stat_reads{0};
  mutable std::atomic<int> tree_reads{0};  // of the GPU process's /proc/4242/stat

  std::optional<std::string> read(const std::string& path, std::size_t max_bytes) const override {
    if (path == "/proc/stat") {
      for (auto give_up = std::chrono::steady_clock::now() + 10s; hang && std::chrono::steady_clock::now() < give_up;)
        std::this_thread::sleep_for(1ms);
      const int n = ++stat_reads;
      return "cpu  " + std::to_string(100 + n) + " 0 0 " + std::to_string(900 + 3 * n) + " 0 0 0 0 0 0\ncpu0 " +
             std::to_string(100 + n) + " 0 0 " + std::to_string(900 + 3 * n) + " 0 0 0 0 0 0\n";
    }
    if (path == "/proc/4242/stat") ++tree_reads;
    if (path == "/proc/net/dev")
      return "h\nh\n eth0: " + std::to_string(1000 * stat_reads.load()) + " 1 0 0 0 0 0 0 5 1 0 0 0 0 0 0\n";
    static const std::map<std::string, std::string> fixed = {
        {"/proc/meminfo", "MemTotal: 1000 kB\nMemAvailable: 400 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n"},
        {"/proc/pressure/io", "some avg10=2.50 avg60=1.00 avg300=0.50 total=100\nfull avg10=1.00 avg60=1.00 avg300=0.50 total=50\n"},
        {"/proc/4242/stat", "4242 (python) S 1 1 1 0 -1 0 0 0 0 0 500 20 0 0 20 0 4 0 123 0 0\n"},
        {"/proc/4242/task/4242/children", "4243 "},
        {"/proc/4243/stat", "4243 (pt_data_worker) S 4242 1 1 0 -1 0 0 0 0 0 300 10 0 0 20 0 1 0 130 0 0\n"},
        {"/proc/4243/task/4243/children", ""},
    };
    auto found = fixed.find(path);
    if (found == fixed.end()) return std::nullopt;
    return found->second.substr(0, max_bytes);
  }
  std::optional<std::vector<std::string>> list(const std::string& path) const override {
    if (path == "/proc/4242/task") return std::vector<std::string>{"4242"};
    if (path == "/proc/4243/task") return std::vector<std::string>{"4243"};
    return std::nullopt;
  }
};

CollectorOptions host_options(std::shared_ptr<MovingHost> host, std::shared_ptr<SampleHistory> history) {
  CollectorOptions options;
  options.interval = 60ms;  // rates need 50 ms between readings (host_signals::kMinCpuWindowS)
  options.history = std::move(history);
  options.host.enabled = true;
  options.host.files = std::move(host);
  options.host.process_trees_every = 0ms;  // the trees at every sample
  return options;
}

std::shared_ptr<const host_signals::HostSample> latest_host(const Collector& collector) {
  std::shared_ptr<const host_signals::HostSample> host;
  collector.with_view([&](const LiveView& view) { host = view.snapshot->host; });
  return host;
}

std::size_t field_index(std::string_view key) {
  const auto& fields = host_signals::host_fields();
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i].key == key) return i;
  ADD_FAILURE() << "no host field " << key;
  return 0;
}

TEST(CollectorHost, EverySnapshotCarriesTheLatestHostSampleWithRatesAndTheGpuProcessTrees) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  fake.devices[0].compute = {{4242, 1ull << 30, 0xFFFFFFFFu, 0xFFFFFFFFu}};
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  auto host = std::make_shared<MovingHost>();
  auto history = std::make_shared<SampleHistory>(5);
  Collector collector(api, host_options(host, history));
  collector.start();

  // Rates from the second reading; the trees from the first reading that knew the GPU's process.
  ASSERT_TRUE(eventually([&] {
    auto h = latest_host(collector);
    return h && h->cpu_busy_percent && !h->process_trees.empty() && h->process_trees[0].cpu_cores;
  }));
  const auto h = latest_host(collector);
  EXPECT_DOUBLE_EQ(*h->cpu_busy_percent, 25.0);  // 1 busy tick for 3 idle at every reading
  EXPECT_DOUBLE_EQ(h->memory_available_percent.value_or(-1), 40.0);
  EXPECT_DOUBLE_EQ(h->io_pressure_some_percent.value_or(-1), 2.5);
  EXPECT_FALSE(h->cpu_pressure_some_percent) << "no /proc/pressure/cpu in the tree: absent, never 0";
  ASSERT_EQ(h->process_trees.size(), 1u);
  EXPECT_EQ(h->process_trees[0].pid, 4242u);
  EXPECT_EQ(h->process_trees[0].processes, 2u) << "the GPU process and its DataLoader worker";
  EXPECT_DOUBLE_EQ(*h->process_trees[0].cpu_cores, 0.0) << "their CPU time did not move";
  ASSERT_TRUE(h->net_rx_bytes_per_s);
  EXPECT_GT(*h->net_rx_bytes_per_s, 0.0);

  // The history's host ring: one row per host sample, bounded by the capacity, the table's values.
  ASSERT_TRUE(eventually([&] { return history->host_size() == 5; }));
  const auto rows = history->host_rows_since(0);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_LE(rows.front().timestamp_s, rows.back().timestamp_s);
  ASSERT_EQ(rows.back().values.size(), host_signals::host_fields().size());
  EXPECT_DOUBLE_EQ(rows.back().values[field_index("memory_available_percent")], 40.0);
  EXPECT_DOUBLE_EQ(rows.back().values[field_index("cpu_busy_percent")], 25.0);
  EXPECT_TRUE(std::isnan(rows.back().values[field_index("cpu_pressure_some_percent")]));

  // The live diagnosis reads the host through the snapshot it is handed.
  collector.with_view([&](const LiveView& view) {
    const auto input = make_diagnosis_input(*view.snapshot, {0.1}, 5.0, {});
    EXPECT_EQ(input.snapshot.host, view.snapshot->host);
    EXPECT_NE(input.snapshot.host, nullptr);
    // and /metrics has the host's gauges
    const std::string text = exporter::encode_prometheus(view, {});
    EXPECT_NE(text.find("\ngpuwatch_host_cpu_busy_ratio 0.25\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\ngpuwatch_host_memory_available_ratio 0.4\n"), std::string::npos) << text;
  });
  EXPECT_TRUE(collector.stop(2s)) << "the host thread ends with the others";
}

TEST(CollectorHost, TheTreesAreReadEveryPeriodAndCarriedBetween) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  fake.devices[0].compute = {{4242, 1ull << 30, 0xFFFFFFFFu, 0xFFFFFFFFu}};
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  auto host = std::make_shared<MovingHost>();
  CollectorOptions options = host_options(host, nullptr);
  options.host.process_trees_every = 1h;  // read when the GPU processes change, else not within the test
  Collector collector(api, options);
  collector.start();
  ASSERT_TRUE(eventually([&] {
    auto h = latest_host(collector);
    return h && !h->process_trees.empty();
  }));
  const int reads = host->stat_reads.load();
  ASSERT_TRUE(eventually([&] { return host->stat_reads.load() >= reads + 4; })) << "four more host samples";
  EXPECT_EQ(host->tree_reads.load(), 1) << "the tree was read once, when 4242 appeared";
  const auto h = latest_host(collector);
  ASSERT_EQ(h->process_trees.size(), 1u) << "carried in the samples between";
  EXPECT_EQ(h->process_trees[0].pid, 4242u);
  EXPECT_EQ(h->process_trees[0].processes, 2u);
  EXPECT_TRUE(h->cpu_busy_percent) << "the rest of the sample is read every interval";
  EXPECT_TRUE(collector.stop(2s));
}

TEST(CollectorHost, TurnedOffNoThreadNoSampleNoSeries) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  auto host = std::make_shared<MovingHost>();
  auto history = std::make_shared<SampleHistory>(5);
  CollectorOptions options = host_options(host, history);
  options.host.enabled = false;  // serve --no-host
  Collector collector(api, options);
  collector.start();
  ASSERT_TRUE(eventually([&] { return history->size(0) >= 3; }));
  EXPECT_EQ(latest_host(collector), nullptr);
  EXPECT_EQ(host->stat_reads.load(), 0);
  EXPECT_EQ(history->host_size(), 0u);
  collector.with_view([&](const LiveView& view) {
    EXPECT_EQ(exporter::encode_prometheus(view, {}).find("gpuwatch_host_"), std::string::npos);
  });
  EXPECT_TRUE(collector.stop(2s));
}

TEST(CollectorHost, AHangingHostReadNeverDelaysTheGpuSamples) {
  testing::FakeNvml fake;
  fake.devices.resize(1);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  auto host = std::make_shared<MovingHost>();
  auto history = std::make_shared<SampleHistory>(1000);
  Collector collector(api, host_options(host, history));
  collector.start();
  ASSERT_TRUE(eventually([&] { return latest_host(collector) != nullptr; }));
  host->hang = true;
  const int reads = host->stat_reads.load();
  const std::size_t before = history->size(0);
  std::this_thread::sleep_for(420ms);  // 7 intervals with the host read stuck
  EXPECT_GE(history->size(0), before + 4) << "the GPU kept being sampled";
  EXPECT_LE(host->stat_reads.load(), reads + 1) << "the host read is really stuck";
  collector.with_view([&](const LiveView& view) { EXPECT_TRUE(view.status[0].up); });
  host->hang = false;
  ASSERT_TRUE(eventually([&] { return host->stat_reads.load() > reads + 2; })) << "and it goes on once the read returns";
  EXPECT_TRUE(collector.stop(2s));
}

TEST(CollectorHost, OneMoreThreadBesideTheOneThreadPool) {
  testing::FakeNvml fake;
  fake.devices.resize(4);
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  std::thread([] {}).join();  // ThreadSanitizer's own thread, before counting
  const int before = testing::thread_count();
  CollectorOptions options = host_options(std::make_shared<MovingHost>(), nullptr);
  options.one_thread = true;  // top's pool: the host still never shares a GPU's thread
  Collector collector(api, options);
  collector.start();
  EXPECT_EQ(testing::thread_count() - before, 3);  // the pool, its watchdog, the host
  ASSERT_TRUE(eventually([&] { return collector.ready() && latest_host(collector) != nullptr; }));
  EXPECT_TRUE(collector.stop(2s));
}

}  // namespace collector_host_test
}  // namespace gpuwatch::live
