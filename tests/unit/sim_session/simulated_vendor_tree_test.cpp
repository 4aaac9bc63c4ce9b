// The simulated vendor tree as the backends see it (backend::SimulatedTree): refresh() renders at
// most once per period, set_clock renders at that moment and stays there.
#include "sim_session/simulated_vendor_tree.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdlib.h>
#include <thread>
#include <vector>

#include "amd/gpu_metrics_layout.hpp"
#include "sim_session/environment.hpp"

namespace gpuwatch::sim_session {
namespace simulated_vendor_tree_test {

namespace fs = std::filesystem;

struct Folder {
  fs::path path;
  Folder() {
    std::string pattern = (fs::temp_directory_path() / "sim-vendor-tree-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~Folder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

fs::path write_scenario(const fs::path& dir, const std::string& yaml) {
  const fs::path file = dir / "scenario.yaml";
  std::ofstream(file) << yaml;
  return file;
}

constexpr const char* kAmdYaml =
    "time_scale: 2\ngpus:\n  - model: MI250X\n    phases: [{kind: training, duration: 10m}]\n";

std::uint64_t clock_counter(const fs::path& metrics) {
  std::ifstream in(metrics, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  amd::gpu_metrics::GpuMetricsV1_3 m{};
  if (bytes.size() != sizeof m) return 0;
  std::memcpy(&m, bytes.data(), sizeof m);
  return m.system_clock_counter;
}

TEST(SimulatedVendorTree, NoneWithoutAmdOrIntelGpus) {
  Folder folder;
  SimulatedTreeSettings settings;
  settings.scenario = write_scenario(folder.path, "gpus: [{model: H100}]\n").string();
  settings.root = folder.path / "root";
  std::string why;
  EXPECT_EQ(make_simulated_vendor_tree(settings, &why), nullptr);
  EXPECT_NE(why.find("no AMD or Intel GPU"), std::string::npos) << why;
}

// A scenario with `host: signals:` and only NVIDIA GPUs gets a tree for the host's files (issue 25);
// one without writes none of them.
TEST(SimulatedVendorTree, HostSignalsAloneGetATreeThatFollowsTheClock) {
  Folder folder;
  SimulatedTreeSettings settings;
  settings.scenario = write_scenario(folder.path,
                                     "gpus:\n  - model: H100\n    processes: [{command: python t.py, pid: 4321}]\n"
                                     "host:\n  signals:\n    cores: 2\n    phases: [{duration: 1m, cpu_busy: 50, workers: 2}]\n")
                          .string();
  settings.root = folder.path / "root";
  settings.epoch_ms = 1'700'000'000'000;
  auto tree = make_simulated_vendor_tree(settings);
  ASSERT_NE(tree, nullptr);
  ASSERT_TRUE(fs::exists(settings.root / "proc/stat"));
  EXPECT_TRUE(fs::exists(settings.root / "proc/4321/task/4321/children"));
  EXPECT_FALSE(fs::exists(settings.root / "sys/class/drm"));
  auto idle_ticks = [&] {
    std::ifstream in(settings.root / "proc/stat");
    std::string cpu;
    unsigned long long user = 0, nice = 0, system = 0, idle = 0;
    in >> cpu >> user >> nice >> system >> idle;
    return idle;
  };
  // 2 cores, half idle, 100 ticks a second: 10 s later 1,000 more idle ticks.
  tree->set_clock(settings.epoch_ms + 20'000);
  const auto at_20s = idle_ticks();
  tree->set_clock(settings.epoch_ms + 30'000);
  EXPECT_EQ(idle_ticks() - at_20s, 1000u);

  Folder plain;
  SimulatedTreeSettings without = settings;
  without.scenario = write_scenario(plain.path, "gpus:\n  - model: H100\n    processes: [{command: python t.py, pid: 4321}]\n").string();
  without.root = plain.path / "root";
  std::string why;
  EXPECT_EQ(make_simulated_vendor_tree(without, &why), nullptr);
  EXPECT_NE(why.find("no host signals"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(without.root / "proc"));
}

TEST(SimulatedVendorTree, RefreshRendersAtMostOncePerPeriod) {
  Folder folder;
  SimulatedTreeSettings settings;
  settings.scenario = write_scenario(folder.path, kAmdYaml).string();
  settings.root = folder.path / "root";
  settings.epoch_ms = unix_time_ms() - 10'000;
  settings.refresh_period = std::chrono::milliseconds(300);
  auto tree = make_simulated_vendor_tree(settings);
  ASSERT_NE(tree, nullptr);
  EXPECT_EQ(tree->time_scale(), 2.0);
  const fs::path busy = settings.root / "sys/class/drm/card0/device/gpu_busy_percent";
  ASSERT_TRUE(fs::exists(busy));  // rendered when made
  fs::remove(busy);
  tree->refresh();
  EXPECT_FALSE(fs::exists(busy)) << "rendered again within the period";
  std::this_thread::sleep_for(std::chrono::milliseconds(350));
  tree->refresh();
  EXPECT_TRUE(fs::exists(busy));
}

TEST(SimulatedVendorTree, SetClockRendersThatMomentAndStaysThere) {
  Folder folder;
  SimulatedTreeSettings settings;
  settings.scenario = write_scenario(folder.path, kAmdYaml).string();
  settings.root = folder.path / "root";
  settings.epoch_ms = 1'700'000'000'000;
  settings.refresh_period = std::chrono::milliseconds(1);
  auto tree = make_simulated_vendor_tree(settings);
  ASSERT_NE(tree, nullptr);
  const fs::path device = settings.root / "sys/class/drm/card0/device";
  tree->set_clock(settings.epoch_ms + 42'000);
  EXPECT_EQ(clock_counter(device / "gpu_metrics"), (1'700'000'000'000ull + 42'000) * 1'000'000);
  // At a set clock, a refresh has nothing new to show.
  fs::remove(device / "gpu_busy_percent");
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  tree->refresh();
  EXPECT_FALSE(fs::exists(device / "gpu_busy_percent"));
  tree->set_clock(settings.epoch_ms + 43'000);
  EXPECT_EQ(clock_counter(device / "gpu_metrics"), (1'700'000'000'000ull + 43'000) * 1'000'000);
  // 0: the real clock again.
  tree->set_clock(0);
  const auto now_ns = static_cast<std::uint64_t>(unix_time_ms()) * 1'000'000;
  EXPECT_NEAR(static_cast<double>(clock_counter(device / "gpu_metrics")), static_cast<double>(now_ns), 5e9);
}

TEST(SimulatedVendorTree, FixedClockFromTheSettings) {
  Folder folder;
  SimulatedTreeSettings settings;
  settings.scenario = write_scenario(folder.path, kAmdYaml).string();
  settings.root = folder.path / "root";
  settings.epoch_ms = 1'700'000'000'000;
  settings.clock_ms = 1'700'000'060'000;  // GPUWATCH_SIM_CLOCK_MS
  auto tree = make_simulated_vendor_tree(settings);
  ASSERT_NE(tree, nullptr);
  EXPECT_EQ(clock_counter(settings.root / "sys/class/drm/card0/device/gpu_metrics"), 1'700'000'060'000ull * 1'000'000);
}

TEST(SimulatedVendorTree, ReadersOnManyThreadsAtOnce) {
  Folder folder;
  SimulatedTreeSettings settings;
  settings.scenario = write_scenario(folder.path, kAmdYaml).string();
  settings.root = folder.path / "root";
  settings.epoch_ms = unix_time_ms() - 5'000;
  settings.refresh_period = std::chrono::milliseconds(1);
  auto tree = make_simulated_vendor_tree(settings);
  ASSERT_NE(tree, nullptr);
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i)
    readers.emplace_back([&] {
      for (int k = 0; k < 40; ++k) {
        tree->refresh();
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
    });
  for (int k = 1; k <= 5; ++k) tree->set_clock(settings.epoch_ms + k * 1000);
  tree->set_clock(0);
  for (auto& r : readers) r.join();
  std::size_t temporaries = 0;
  for (const auto& entry : fs::recursive_directory_iterator(settings.root))
    temporaries += entry.path().filename().string().ends_with(".tmp");
  EXPECT_EQ(temporaries, 0u);
  EXPECT_TRUE(fs::exists(settings.root / "sys/class/drm/card0/device/gpu_metrics"));
}

}  // namespace simulated_vendor_tree_test
}  // namespace gpuwatch::sim_session
