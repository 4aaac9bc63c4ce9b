// The simulated AMD and Intel GPUs' kernel files (sim/engine/vendor_tree.hpp): the contract's
// files and formats, values that move with the scenario, counters that never go back, atomic
// replacement.
#include "sim/engine/vendor_tree.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <set>
#include <sstream>
#include <stdlib.h>
#include <sys/stat.h>

#include "amd/gpu_metrics_layout.hpp"
#include "sim/engine/scenario_loader.hpp"

namespace gpuwatch::sim {
namespace vendor_tree_test {

namespace fs = std::filesystem;
namespace gm = amd::gpu_metrics;

// Scenario order Intel, AMD, Intel: the cards are AMD first (card0), then Intel (card1 xe, card2 i915).
constexpr const char* kYaml = R"(
time_scale: 1
gpus:
  - model: Arc A770
    phases: [{kind: training, duration: 10m}]
    processes: [{command: "python xpu.py", user: u, memory: 2000, pid: 4343}]
  - model: MI300X
    phases:
      - {kind: training, duration: 60s}
      - {kind: thermal_runaway, duration: 5m}
    loop: false
    processes:
      - {command: "python train.py", user: u, memory: 1000, pid: 4242}
      - {command: "python eval.py", user: u, memory: 500, pid: 4244}
  - model: Max 1550
    phases: [{kind: training, duration: 10m}]
    processes: [{command: "python leak.py", user: u, memory: 3000, pid: 4545}]
)";

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

unsigned long long number_in(const fs::path& path) { return std::stoull(slurp(path)); }

// The number after KEY ("drm-engine-compute:\t123 ns" -> 123) in an fdinfo file.
unsigned long long fdinfo_value(const fs::path& path, const std::string& key) {
  const std::string text = slurp(path);
  const auto at = text.find(key + ":\t");
  EXPECT_NE(at, std::string::npos) << key << " in " << path << ":\n" << text;
  if (at == std::string::npos) return 0;
  return std::stoull(text.substr(at + key.size() + 2));
}

gm::GpuMetricsV1_3 metrics_of(const fs::path& path) {
  const std::string bytes = slurp(path);
  gm::GpuMetricsV1_3 m{};
  EXPECT_EQ(bytes.size(), sizeof m);
  std::memcpy(&m, bytes.data(), std::min(bytes.size(), sizeof m));
  return m;
}

struct Fixture : ::testing::Test {
  fs::path root;
  std::unique_ptr<Simulation> sim;
  std::unique_ptr<VendorTree> tree;
  fs::path card0, card1, card2;

  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "vendor-tree-XXXXXX").string();
    root = ::mkdtemp(pattern.data());
    auto sc = parse_scenario(kYaml, "test.yaml", "");
    ASSERT_TRUE(sc) << sc.error().message;
    sim = std::make_unique<Simulation>(std::move(*sc), PidSources{});
    tree = std::make_unique<VendorTree>(*sim, root, 1'700'000'000'000);
    card0 = root / "sys/class/drm/card0";
    card1 = root / "sys/class/drm/card1";
    card2 = root / "sys/class/drm/card2";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  void render(double t) {
    auto done = tree->render_at(t);
    ASSERT_TRUE(done) << done.error().message;
  }
};

using SimVendorTree = Fixture;

TEST_F(SimVendorTree, CardsAreAmdFirstThenIntelInScenarioOrder) {
  ASSERT_EQ(tree->cards().size(), 3u);
  EXPECT_EQ(tree->cards()[0].gpu, 1u);
  EXPECT_EQ(tree->cards()[0].driver, KernelDriver::Amdgpu);
  EXPECT_EQ(tree->cards()[1].gpu, 0u);
  EXPECT_EQ(tree->cards()[1].driver, KernelDriver::Xe);
  EXPECT_EQ(tree->cards()[2].gpu, 2u);
  EXPECT_EQ(tree->cards()[2].driver, KernelDriver::I915);
  EXPECT_EQ(sysfs_pci_slot("00000000:C1:00.0"), "0000:c1:00.0");
}

TEST_F(SimVendorTree, DiscoveryFilesOfEveryCard) {
  render(30);
  const std::string uevent = slurp(card0 / "device/uevent");
  EXPECT_NE(uevent.find("DRIVER=amdgpu\n"), std::string::npos) << uevent;
  EXPECT_NE(uevent.find("PCI_ID=1002:74A1\n"), std::string::npos) << uevent;
  EXPECT_TRUE(std::regex_search(uevent, std::regex("\nPCI_SLOT_NAME=[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]\n"))) << uevent;
  EXPECT_EQ(slurp(card0 / "device/vendor"), "0x1002\n");
  EXPECT_EQ(slurp(card0 / "device/device"), "0x74a1\n");
  EXPECT_NE(slurp(card1 / "device/uevent").find("DRIVER=xe\nPCI_CLASS=30000\nPCI_ID=8086:56A0\n"), std::string::npos);
  EXPECT_NE(slurp(card2 / "device/uevent").find("DRIVER=i915\n"), std::string::npos);
  EXPECT_EQ(slurp(card2 / "device/vendor"), "0x8086\n");
  // Two cards never share a PCI address.
  EXPECT_NE(slurp(card1 / "device/uevent"), slurp(card2 / "device/uevent"));
}

TEST_F(SimVendorTree, AmdSysfsFormats) {
  render(30);
  const fs::path dev = card0 / "device";
  EXPECT_EQ(slurp(dev / "product_name"), "AMD Instinct MI300X\n");
  EXPECT_TRUE(std::regex_match(slurp(dev / "unique_id"), std::regex("[0-9a-f]{16}\n")));
  EXPECT_EQ(number_in(dev / "mem_info_vram_total"), 196592ull * 1048576);
  const auto used = number_in(dev / "mem_info_vram_used");
  EXPECT_GT(used, 1500ull * 1048576);  // the processes' memory, in bytes
  EXPECT_EQ(used % 1048576, 0u);
  const auto busy = number_in(dev / "gpu_busy_percent");
  EXPECT_GT(busy, 50u);  // training
  EXPECT_LE(busy, 100u);
  // pp_dpm_sclk: "N: <MHz>Mhz" lines, exactly one marked current, the highest the model's maximum.
  const std::string sclk = slurp(dev / "pp_dpm_sclk");
  std::istringstream lines(sclk);
  std::string line;
  int marked = 0, count = 0;
  unsigned long long last = 0;
  while (std::getline(lines, line)) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(line, m, std::regex(R"((\d+): (\d+)Mhz (\*?))"))) << line;
    EXPECT_EQ(std::stoi(m[1]), count++);
    last = std::stoull(m[2]);
    marked += m[3] == "*";
  }
  EXPECT_EQ(marked, 1) << sclk;
  EXPECT_EQ(last, 2100u) << sclk;
  EXPECT_EQ(slurp(dev / "current_link_width"), "16\n");
  EXPECT_TRUE(std::regex_match(slurp(dev / "current_link_speed"), std::regex(R"(\d+\.\d GT/s PCIe\n)")));
  EXPECT_EQ(slurp(dev / "ras/umc_err_count"), "ue: 0\nce: 0\n");
}

TEST_F(SimVendorTree, AmdHwmonUnits) {
  render(30);
  const fs::path hw = card0 / "device/hwmon/hwmon0";
  EXPECT_EQ(slurp(hw / "name"), "amdgpu\n");
  EXPECT_EQ(slurp(hw / "temp1_label"), "edge\n");
  EXPECT_EQ(slurp(hw / "temp2_label"), "junction\n");
  const auto edge = number_in(hw / "temp1_input");
  EXPECT_GT(edge, 25000u);  // millidegrees
  EXPECT_LT(edge, 120000u);
  EXPECT_GT(number_in(hw / "temp2_input"), edge);
  const auto power = number_in(hw / "power1_input");  // MI300X: instant power, µW
  EXPECT_GT(power, 100'000'000u);
  EXPECT_LT(power, 800'000'000u);
  EXPECT_EQ(number_in(hw / "power1_cap"), 750'000'000u);
  EXPECT_GT(number_in(hw / "energy1_input"), 1'000'000u);  // µJ: more than a joule after 30 s
  // gpu_metrics agrees with the text files.
  const auto m = metrics_of(card0 / "device/gpu_metrics");
  EXPECT_EQ(m.common_header.structure_size, sizeof(gm::GpuMetricsV1_3));
  EXPECT_EQ(m.common_header.format_revision, 1);
  EXPECT_EQ(m.common_header.content_revision, 3);
  EXPECT_EQ(m.temperature_edge, edge / 1000);
  EXPECT_EQ(m.average_gfx_activity, number_in(card0 / "device/gpu_busy_percent"));
  EXPECT_NEAR(m.average_socket_power, power / 1e6, 1.0);
  EXPECT_EQ(m.temperature_vrgfx, gm::kUnset16);  // not simulated: unset, never 0
  EXPECT_EQ(m.system_clock_counter, (1'700'000'000'000ull + 30'000) * 1'000'000);
}

TEST_F(SimVendorTree, ThermalPhaseRaisesTheHotspotThrottleBit) {
  render(30);
  EXPECT_EQ(metrics_of(card0 / "device/gpu_metrics").indep_throttle_status & gm::throttler::kThermalMask, 0u);
  render(350);  // the end of the thermal runaway: past the slowdown temperature
  const auto m = metrics_of(card0 / "device/gpu_metrics");
  EXPECT_NE(m.indep_throttle_status & gm::throttler::bit(gm::throttler::kTempHotspot), 0u) << m.indep_throttle_status;
  EXPECT_GT(m.temperature_edge, 95);
  EXPECT_EQ(m.indep_throttle_status & gm::throttler::kPowerMask, 0u);
}

TEST_F(SimVendorTree, IntelFiles) {
  render(30);
  // xe (Arc A770): frequencies under tile0/gt0/freq0, package temperature, cycles in fdinfo.
  const fs::path freq = card1 / "device/tile0/gt0/freq0";
  EXPECT_EQ(number_in(freq / "rp0_freq"), 2400u);
  EXPECT_GT(number_in(freq / "act_freq"), 300u);
  const fs::path xe_hw = card1 / "device/hwmon/hwmon1";
  EXPECT_EQ(slurp(xe_hw / "name"), "xe\n");
  EXPECT_EQ(number_in(xe_hw / "power1_max"), 225'000'000u);
  EXPECT_GT(number_in(xe_hw / "temp2_input"), 25000u);
  // i915 (Max 1550): card-level gt_* frequencies, no temperature file.
  EXPECT_EQ(number_in(card2 / "gt_RP0_freq_mhz"), 1600u);
  EXPECT_GT(number_in(card2 / "gt_act_freq_mhz"), 0u);
  const fs::path i915_hw = card2 / "device/hwmon/hwmon2";
  EXPECT_EQ(slurp(i915_hw / "name"), "i915\n");
  EXPECT_FALSE(fs::exists(i915_hw / "temp2_input"));
  EXPECT_GT(number_in(i915_hw / "energy1_input"), 0u);
}

TEST_F(SimVendorTree, FdinfoKeysOfEachDriver) {
  render(30);
  const fs::path amd = root / "proc/4242/fdinfo/10";
  const std::string text = slurp(amd);
  EXPECT_NE(text.find("drm-driver:\tamdgpu\n"), std::string::npos) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("\ndrm-pdev:\t[0-9a-f]{4}:[0-9a-f]{2}:00\\.0\n"))) << text;
  EXPECT_NE(text.find("drm-client-id:\t"), std::string::npos);
  EXPECT_EQ(fdinfo_value(amd, "drm-memory-vram"), 1000u * 1024);
  EXPECT_TRUE(std::regex_search(text, std::regex("\ndrm-engine-compute:\t[0-9]+ ns\n"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("\ndrm-memory-gtt:\t[0-9]+ KiB\n"))) << text;
  // Two processes share the GPU: together they are busy about what the GPU was (30 s at ~90 %).
  const double both = static_cast<double>(fdinfo_value(amd, "drm-engine-compute") +
                                          fdinfo_value(root / "proc/4244/fdinfo/10", "drm-engine-compute"));
  EXPECT_GT(both, 15e9);
  EXPECT_LE(both, 30e9);
  const fs::path xe = root / "proc/4343/fdinfo/11";
  EXPECT_NE(slurp(xe).find("drm-driver:\txe\n"), std::string::npos);
  EXPECT_EQ(fdinfo_value(xe, "drm-total-vram0"), 2000u * 1024);
  EXPECT_LE(fdinfo_value(xe, "drm-cycles-ccs"), fdinfo_value(xe, "drm-total-cycles-ccs"));
  EXPECT_GT(fdinfo_value(xe, "drm-cycles-ccs"), 0u);
  const fs::path i915 = root / "proc/4545/fdinfo/12";
  EXPECT_NE(slurp(i915).find("drm-driver:\ti915\n"), std::string::npos);
  EXPECT_EQ(fdinfo_value(i915, "drm-total-local0"), 3000u * 1024);
  EXPECT_GT(fdinfo_value(i915, "drm-engine-compute"), 0u);
}

TEST_F(SimVendorTree, ValuesMoveWithTimeAndCountersNeverGoBack) {
  unsigned long long last_ns = 0, last_energy = 0, last_cycles = 0, ns_at_40 = 0;
  std::set<std::string> metrics;
  for (double t = 5; t <= 120; t += 5) {
    render(t);
    const auto ns = fdinfo_value(root / "proc/4242/fdinfo/10", "drm-engine-compute");
    const auto energy = number_in(card0 / "device/hwmon/hwmon0/energy1_input");
    const auto cycles = fdinfo_value(root / "proc/4343/fdinfo/11", "drm-cycles-ccs");
    EXPECT_GE(ns, last_ns) << "t=" << t;
    EXPECT_GT(energy, last_energy) << "t=" << t;
    EXPECT_GE(cycles, last_cycles) << "t=" << t;
    last_ns = ns, last_energy = energy, last_cycles = cycles;
    if (t == 40) ns_at_40 = ns;
    metrics.insert(slurp(card0 / "device/gpu_metrics"));
  }
  EXPECT_GT(last_ns, ns_at_40);
  EXPECT_EQ(metrics.size(), 24u);  // every moment's table differs (timestamps, energy at least)
  // A moment rendered again reads as it did (a function of the time, not of the render history).
  render(40);
  EXPECT_EQ(fdinfo_value(root / "proc/4242/fdinfo/10", "drm-engine-compute"), ns_at_40);
}

TEST_F(SimVendorTree, FilesAreReplacedWholeWithNoTemporaryLeft) {
  for (double t = 1; t <= 20; t += 1) render(t);
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    const std::string name = entry.path().filename().string();
    EXPECT_FALSE(name.ends_with(".tmp")) << entry.path();
    EXPECT_NE(name[0], '.') << entry.path();
  }
  EXPECT_GT(files, 60u);
}

TEST(SimVendorTreeLost, ALostGpuKeepsItsIdentityAndLosesItsReadings) {
  std::string pattern = (fs::temp_directory_path() / "vendor-tree-lost-XXXXXX").string();
  const fs::path root = ::mkdtemp(pattern.data());
  auto sc = parse_scenario(
      "gpus:\n  - model: MI250X\n    phases: [{kind: training, duration: 10s}, {kind: gpu_lost, duration: 1m}]\n"
      "    loop: false\n    processes: [{command: train, user: u, memory: 100, pid: 777}]\n",
      "lost.yaml", "");
  ASSERT_TRUE(sc) << sc.error().message;
  Simulation sim(std::move(*sc), PidSources{});
  VendorTree tree(sim, root, 0);
  const fs::path dev = root / "sys/class/drm/card0/device";
  ASSERT_TRUE(tree.render_at(5));
  EXPECT_TRUE(fs::exists(dev / "gpu_busy_percent"));
  EXPECT_TRUE(fs::exists(root / "proc/777/fdinfo/10"));
  ASSERT_TRUE(tree.render_at(30));
  EXPECT_TRUE(fs::exists(dev / "uevent"));
  EXPECT_FALSE(fs::exists(dev / "gpu_busy_percent"));
  EXPECT_FALSE(fs::exists(dev / "gpu_metrics"));
  EXPECT_FALSE(fs::exists(dev / "hwmon/hwmon0/temp1_input"));
  EXPECT_FALSE(fs::exists(root / "proc/777/fdinfo/10"));  // its process's DRM file too
  std::error_code ec;
  fs::remove_all(root, ec);
}

TEST_F(SimVendorTree, AnUnchangedFileIsLeftAloneUnlessSomeoneElseReplacedIt) {
  render(30);
  const fs::path busy = card0 / "device/gpu_busy_percent";
  const std::string value = slurp(busy);
  struct stat before {};
  ASSERT_EQ(::stat(busy.c_str(), &before), 0);
  render(30);  // the same moment: the same content, the file untouched
  struct stat again {};
  ASSERT_EQ(::stat(busy.c_str(), &again), 0);
  EXPECT_EQ(again.st_ino, before.st_ino);
  // Another process's file there (another moment's value): the next render puts this one's back.
  const fs::path other = card0 / "device/other-process";
  std::ofstream(other) << "7\n";
  fs::rename(other, busy);
  render(30);
  EXPECT_EQ(slurp(busy), value);
}

}  // namespace vendor_tree_test
}  // namespace gpuwatch::sim
