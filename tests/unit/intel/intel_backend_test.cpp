// The Intel backend over fake i915 and xe trees (the contract's files) and, for what the files
// lack, a fake Level Zero: each field's value in base units, absent fields, rates of counters,
// processes from fdinfo, discovery.
#include "intel/intel_backend.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "core/field_table.hpp"
#include "fake_sysman.hpp"
#include "intel_fake_tree.hpp"

namespace intel_backend_test {

using gpuwatch::backend::DeviceHandle;
using gpuwatch::backend::OpenOptions;
using gpuwatch::core::DeviceSnapshot;
using gpuwatch::core::FieldId;
using gpuwatch::core::FieldStatus;
using gpuwatch::core::Source;
using namespace gpuwatch::intel;
using intel_fake_tree::FakeRoot;
using intel_fake_tree::FakeSimulatedTree;

struct Opened {
  std::unique_ptr<IntelBackend> backend;
  std::shared_ptr<FakeSimulatedTree> tree;
};

Opened open_over(const FakeRoot& root, const SysmanFunctions* sysman = nullptr, const std::string& ze = "none") {
  OpenOptions options;
  options.host_root = root.path();
  options.level_zero_library = ze;
  auto tree = std::make_shared<FakeSimulatedTree>();
  options.simulated_tree = tree;
  auto backend = open_intel_backend(options, sysman);
  EXPECT_TRUE(backend) << (backend ? "" : backend.error().message);
  return {backend ? std::move(*backend) : nullptr, tree};
}

// Reads every field of SOURCE of device INDEX into DEVICE.
void read(const IntelBackend& b, unsigned index, Source source, DeviceSnapshot& device) {
  std::vector<FieldId> fields;
  for (const auto& info : gpuwatch::core::field_table()) {
    if (info.source == source) fields.push_back(info.id);
  }
  DeviceHandle h;
  ASSERT_TRUE(b.handle_by_index(index, &h).ok());
  static_cast<void>(b.read_source(h, source, fields, device));
}

DeviceSnapshot read_all(const IntelBackend& b, unsigned index = 0) {
  DeviceSnapshot d;
  for (Source s : {Source::Name, Source::Uuid, Source::Serial, Source::PciInfo, Source::Index, Source::NumFans,
                   Source::ClockInfo, Source::MaxClockInfo, Source::PowerLimit, Source::EnforcedPowerLimit,
                   Source::PowerDefaultLimit, Source::TotalEnergy, Source::PowerUsage, Source::Temperature,
                   Source::FieldValues, Source::MemoryInfo, Source::UtilizationRates, Source::FanSpeed,
                   Source::EccMode, Source::PcieCurrGen}) {
    read(b, index, s, d);
  }
  return d;
}

std::string text(const DeviceSnapshot& d, FieldId f) { return d.get(f).as_string().value_or("<absent>"); }
double number(const DeviceSnapshot& d, FieldId f) { return d.get(f).as_double().value_or(-1); }

TEST(IntelBackendTest, I915FieldsFromSysfsAndHwmonInBaseUnits) {
  FakeRoot root;
  root.i915_card(0, "0000:03:00.0", "8086:56A0");
  root.write("proc/1/comm", "init\n");  // processes, none a DRM client
  auto [b, tree] = open_over(root);
  ASSERT_TRUE(b);
  b->set_sim_clock(1'700'000'000'000);  // a clock of the test's own: no baselines from the open
  unsigned count = 0;
  ASSERT_TRUE(b->device_count(&count).ok());
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(b->vendor(), gpuwatch::core::Vendor::Intel);
  const auto d = read_all(*b);
  EXPECT_EQ(text(d, FieldId::Name), "Intel Arc A770 Graphics");
  EXPECT_EQ(text(d, FieldId::Uuid), "INTEL-0000:03:00.0");
  EXPECT_EQ(text(d, FieldId::PciBusId), "00000000:03:00.0");
  EXPECT_EQ(d.get(FieldId::PciDeviceId).as_uint(), 0x56a08086u);
  EXPECT_EQ(d.get(FieldId::PciBus).as_uint(), 3u);
  EXPECT_EQ(number(d, FieldId::ClocksCurrentGraphics), 1300e6);  // act, MHz -> Hz
  EXPECT_EQ(number(d, FieldId::ClocksCurrentSm), 1300e6);
  EXPECT_EQ(number(d, FieldId::ClocksMaxSm), 2400e6);             // RP0
  EXPECT_DOUBLE_EQ(number(d, FieldId::PowerLimit), 190.0);        // µW -> W
  EXPECT_DOUBLE_EQ(number(d, FieldId::EnforcedPowerLimit), 190.0);
  EXPECT_DOUBLE_EQ(number(d, FieldId::PowerDefaultLimit), 225.0);  // power1_rated_max
  EXPECT_DOUBLE_EQ(number(d, FieldId::EnergyTotal), 1000.0);       // µJ -> J
  EXPECT_EQ(d.get(FieldId::FanCount).as_uint(), 1u);
  // What i915's files do not have, without Level Zero: absent, never 0.
  for (FieldId f : {FieldId::TemperatureGpu, FieldId::TemperatureMemory, FieldId::MemoryTotal, FieldId::MemoryFree,
                    FieldId::Serial, FieldId::ClocksCurrentMemory, FieldId::ClocksMaxMemory, FieldId::FanSpeed,
                    FieldId::UtilizationMemory, FieldId::EccModeCurrent, FieldId::PcieLinkGenCurrent,
                    FieldId::PowerDrawInstant}) {
    EXPECT_EQ(d.get(f).status, FieldStatus::NotSupported) << gpuwatch::core::field_info(f).name;
    EXPECT_FALSE(d.get(f).value.has_value());
  }
  // Rates need a second reading: absent at the first, not cached as unsupported.
  EXPECT_EQ(d.get(FieldId::PowerDraw).status, FieldStatus::NotApplicable);
  EXPECT_EQ(d.get(FieldId::UtilizationGpu).status, FieldStatus::NotApplicable);
  EXPECT_EQ(d.get(FieldId::MemoryUsed).as_uint(), 0u);  // no DRM client holds local memory
  EXPECT_GE(tree->refreshes, 20);  // every read group brings the simulated files to now
}

TEST(IntelBackendTest, XeFieldsIncludeThePackageTemperature) {
  FakeRoot root;
  root.xe_card(1, "0000:3a:00.0", "8086:E20B");
  auto [b, tree] = open_over(root);
  ASSERT_TRUE(b);
  const auto d = read_all(*b);
  EXPECT_EQ(text(d, FieldId::Name), "Intel GPU [8086:e20b]");  // not in the table, no Level Zero
  EXPECT_EQ(d.get(FieldId::TemperatureGpu).as_int(), 62);      // 61500 m°C, rounded
  EXPECT_EQ(number(d, FieldId::ClocksCurrentGraphics), 1550e6);
  EXPECT_EQ(number(d, FieldId::ClocksMaxGraphics), 1600e6);
  EXPECT_DOUBLE_EQ(number(d, FieldId::PowerLimit), 600.0);
  EXPECT_DOUBLE_EQ(number(d, FieldId::EnergyTotal), 5.0);
  EXPECT_EQ(d.get(FieldId::FanCount).status, FieldStatus::NotSupported);  // no fanN_input
  // No /proc under the root at all: nothing to sum, so no memory.used either.
  EXPECT_EQ(d.get(FieldId::MemoryUsed).status, FieldStatus::NotSupported);
}

TEST(IntelBackendTest, PowerDrawIsEnergyOverTimeBetweenTwoSamples) {
  FakeRoot root;
  root.i915_card(0, "0000:03:00.0", "8086:56A0");
  auto [b, tree] = open_over(root);
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->has_sim_clock());
  ASSERT_TRUE(b->set_sim_clock(1'700'000'000'000));
  EXPECT_EQ(tree->clock_ms, 1'700'000'000'000);  // forwarded to the simulated tree
  DeviceSnapshot d;
  read(*b, 0, Source::PowerUsage, d);
  EXPECT_EQ(d.get(FieldId::PowerDraw).status, FieldStatus::NotApplicable);
  root.write("sys/class/drm/card0/device/hwmon/hwmon3/energy1_input", "1300000000\n");  // +300 J
  b->set_sim_clock(1'700'000'002'000);                                                  // +2 s
  read(*b, 0, Source::PowerUsage, d);
  EXPECT_DOUBLE_EQ(number(d, FieldId::PowerDraw), 150.0);
  // Readings too close together keep the last power (two samplers at once), never 0.
  read(*b, 0, Source::PowerUsage, d);
  EXPECT_DOUBLE_EQ(number(d, FieldId::PowerDraw), 150.0);
  // A counter that went back (driver reload) starts over: absent, not a negative power.
  root.write("sys/class/drm/card0/device/hwmon/hwmon3/energy1_input", "5\n");
  b->set_sim_clock(1'700'000'004'000);
  read(*b, 0, Source::PowerUsage, d);
  EXPECT_EQ(d.get(FieldId::PowerDraw).status, FieldStatus::NotApplicable);
}

TEST(IntelBackendTest, OnTheRealClockTheFirstSampleHasRatesAgainstTheOpen) {
  FakeRoot root;
  root.i915_card(0, "0000:03:00.0", "8086:56A0");
  root.fdinfo(4242, 5, intel_fake_tree::i915_fdinfo("0000:03:00.0", 7, 0, 0, 2048));
  auto [b, tree] = open_over(root);
  ASSERT_TRUE(b);
  const auto opened = std::chrono::steady_clock::now();
  root.write("sys/class/drm/card0/device/hwmon/hwmon3/energy1_input", "1030000000\n");  // +30 J
  root.fdinfo(4242, 5, intel_fake_tree::i915_fdinfo("0000:03:00.0", 7, 10'000'000, 0, 2048));
  DeviceSnapshot d;
  read(*b, 0, Source::PowerUsage, d);
  read(*b, 0, Source::UtilizationRates, d);
  // The reads waited for the baselines' interval (once) and have rates over it.
  EXPECT_GE(std::chrono::steady_clock::now() - opened, std::chrono::milliseconds(100));
  ASSERT_TRUE(d.get(FieldId::PowerDraw).ok());
  EXPECT_GT(number(d, FieldId::PowerDraw), 0.0);
  EXPECT_LE(number(d, FieldId::PowerDraw), 30.0 / 0.12);
  ASSERT_TRUE(d.get(FieldId::UtilizationGpu).ok());
  EXPECT_GT(number(d, FieldId::UtilizationGpu), 0.0);
}

TEST(IntelBackendTest, SimulatedCountersRunOnTheWallClockWhateverTheTimeScale) {
  FakeRoot root;
  root.i915_card(0, "0000:03:00.0", "8086:56A0");
  auto [b, tree] = open_over(root);
  ASSERT_TRUE(b);
  tree->scale = 2.0;  // 2 scenario seconds per wall second: the tree's counters are in wall time all the same
  EXPECT_EQ(b->sim_time_scale(), 2.0);
  b->set_sim_clock(1'700'000'000'000);
  DeviceSnapshot d;
  read(*b, 0, Source::PowerUsage, d);
  root.write("sys/class/drm/card0/device/hwmon/hwmon3/energy1_input", "1400000000\n");  // +400 J
  b->set_sim_clock(1'700'000'001'000);                                                  // +1 s
  read(*b, 0, Source::PowerUsage, d);
  EXPECT_DOUBLE_EQ(number(d, FieldId::PowerDraw), 400.0);
}

TEST(IntelBackendTest, I915ProcessesFromFdinfoDedupedAndUtilizationOverTime) {
  FakeRoot root;
  root.i915_card(0, "0000:03:00.0", "8086:56A0");
  root.fdinfo(4242, 5, intel_fake_tree::i915_fdinfo("0000:03:00.0", 7, 0, 0, 2048));
  root.fdinfo(4242, 9, intel_fake_tree::i915_fdinfo("0000:03:00.0", 7, 0, 0, 2048));  // same client, dup'ed fd
  root.fdinfo(5151, 3, intel_fake_tree::i915_fdinfo("0000:03:00.0", 8, 0, 0, 1024));
  root.fdinfo(6161, 3, intel_fake_tree::i915_fdinfo("0000:04:00.0", 9, 0, 0, 4096));  // another GPU's
  root.fdinfo(7171, 3, "drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t1\n");
  auto [b, tree] = open_over(root);
  ASSERT_TRUE(b);
  b->set_sim_clock(1'700'000'000'000);
  DeviceHandle h;
  ASSERT_TRUE(b->handle_by_index(0, &h).ok());
  DeviceSnapshot d;
  unsigned long long since = 0;
  ASSERT_TRUE(b->read_processes(h, &since, d).ok());
  EXPECT_EQ(d.processes_status, FieldStatus::Ok);
  ASSERT_EQ(d.processes.size(), 2u);
  std::sort(d.processes.begin(), d.processes.end(), [](auto& x, auto& y) { return x.pid < y.pid; });
  EXPECT_EQ(d.processes[0].pid, 4242u);
  EXPECT_EQ(d.processes[0].used_memory_bytes, 2048u * 1024u);  // the client once, not per descriptor
  EXPECT_EQ(d.processes[1].used_memory_bytes, 1024u * 1024u);
  EXPECT_FALSE(d.processes[0].sm_ratio);  // one scan: no rate yet
  EXPECT_EQ(since, 1'700'000'000'000'000ull);
  read(*b, 0, Source::MemoryInfo, d);
  EXPECT_EQ(d.get(FieldId::MemoryUsed).as_uint(), 3072u * 1024u);  // this GPU's clients only

  // One second later 4242 rendered 0.5 s and 5151 computed 0.25 s.
  root.fdinfo(4242, 5, intel_fake_tree::i915_fdinfo("0000:03:00.0", 7, 500'000'000, 0, 2048));
  root.fdinfo(4242, 9, intel_fake_tree::i915_fdinfo("0000:03:00.0", 7, 500'000'000, 0, 2048));
  root.fdinfo(5151, 3, intel_fake_tree::i915_fdinfo("0000:03:00.0", 8, 0, 250'000'000, 1024));
  b->set_sim_clock(1'700'000'001'000);
  ASSERT_TRUE(b->read_processes(h, &since, d).ok());
  ASSERT_EQ(d.processes.size(), 2u);
  std::sort(d.processes.begin(), d.processes.end(), [](auto& x, auto& y) { return x.pid < y.pid; });
  ASSERT_TRUE(d.processes[0].sm_ratio);
  EXPECT_DOUBLE_EQ(*d.processes[0].sm_ratio, 0.5);
  EXPECT_EQ(d.processes[0].type, gpuwatch::core::ProcessType::Graphics);
  EXPECT_DOUBLE_EQ(*d.processes[1].sm_ratio, 0.25);
  EXPECT_EQ(d.processes[1].type, gpuwatch::core::ProcessType::Compute);
  read(*b, 0, Source::UtilizationRates, d);
  EXPECT_DOUBLE_EQ(number(d, FieldId::UtilizationGpu), 0.5);  // the busiest class: render
}

TEST(IntelBackendTest, XeProcessesAndUtilizationFromCycles) {
  FakeRoot root;
  root.xe_card(0, "0000:3a:00.0", "8086:0BD5");
  root.fdinfo(4242, 5, intel_fake_tree::xe_fdinfo("0000:3a:00.0", 3, 1000, 10000, 8192));
  auto [b, tree] = open_over(root);
  ASSERT_TRUE(b);
  b->set_sim_clock(1'700'000'000'000);
  DeviceSnapshot d;
  read(*b, 0, Source::UtilizationRates, d);
  EXPECT_EQ(d.get(FieldId::UtilizationGpu).status, FieldStatus::NotApplicable);
  root.fdinfo(4242, 5, intel_fake_tree::xe_fdinfo("0000:3a:00.0", 3, 1000 + 300, 10000 + 1000, 8192));
  b->set_sim_clock(1'700'000'001'000);
  read(*b, 0, Source::UtilizationRates, d);
  EXPECT_DOUBLE_EQ(number(d, FieldId::UtilizationGpu), 0.3);  // Δcycles / Δtotal-cycles
  read(*b, 0, Source::MemoryInfo, d);
  EXPECT_EQ(d.get(FieldId::MemoryUsed).as_uint(), 8192u * 1024u);  // drm-total-vram0
  EXPECT_EQ(d.get(FieldId::MemoryTotal).status, FieldStatus::NotSupported);
  DeviceHandle h;
  ASSERT_TRUE(b->handle_by_index(0, &h).ok());
  ASSERT_TRUE(b->read_processes(h, nullptr, d).ok());
  ASSERT_EQ(d.processes.size(), 1u);
  EXPECT_EQ(d.processes[0].type, gpuwatch::core::ProcessType::Compute);
  EXPECT_FALSE(d.processes[0].sm_ratio);  // not asked for
  EXPECT_EQ(text(d, FieldId::Name), "<absent>");
  read(*b, 0, Source::Name, d);
  EXPECT_EQ(text(d, FieldId::Name), "Intel Data Center GPU Max 1550");
}

TEST(IntelBackendTest, OnlyIntelCardsAreFoundInCardOrder) {
  FakeRoot root;
  root.card(0, "amdgpu", "0000:c1:00.0", "1002:74A1");
  root.i915_card(2, "0000:04:00.0", "8086:56A0");
  root.xe_card(10, "0000:3a:00.0", "8086:0BD5");
  root.write("sys/class/drm/card2-DP-1/status", "disconnected\n");
  root.write("sys/class/drm/renderD128/device/uevent", "DRIVER=i915\n");
  const auto cards = discover_intel_cards(root.path());
  ASSERT_EQ(cards.size(), 2u);
  EXPECT_EQ(cards[0].card_number, 2u);
  EXPECT_EQ(cards[0].driver, KernelDriver::I915);
  EXPECT_EQ(cards[1].card_number, 10u);  // by number, not by name (card10 after card2)
  EXPECT_EQ(cards[1].driver, KernelDriver::Xe);
  EXPECT_EQ(cards[1].slot, "0000:3a:00.0");
  EXPECT_EQ(cards[1].device_id, 0x0bd5u);
}

TEST(IntelBackendTest, NoIntelGpuIsAnErrorThatSaysWhereItLooked) {
  FakeRoot root;
  root.card(0, "amdgpu", "0000:c1:00.0", "1002:74A1");
  OpenOptions options;
  options.host_root = root.path();
  auto backend = open_backend(options);
  ASSERT_FALSE(backend);
  EXPECT_NE(backend.error().message.find("no i915 or xe GPU under " + root.path() + "/sys/class/drm"), std::string::npos);
}

TEST(IntelBackendTest, LevelZeroFillsWhatTheFilesLackForTheMatchingCard) {
  fake_sysman::state = {};
  fake_sysman::state.devices = {fake_sysman::max_1550()};
  auto fakes = fake_sysman::functions();
  FakeRoot root;
  root.i915_card(0, "0000:3a:00.0", "8086:0BD5");  // matches the fake's address
  root.i915_card(1, "0000:9a:00.0", "8086:0BD5");  // no Level Zero device there
  auto [b, tree] = open_over(root, &fakes);
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->uses_level_zero());
  EXPECT_NE(b->describe().find("1 of 2 GPU(s) matched"), std::string::npos) << b->describe();
  b->set_sim_clock(1'700'000'000'000);
  auto d = read_all(*b, 0);
  EXPECT_EQ(text(d, FieldId::Name), "Intel(R) Data Center GPU Max 1550");
  EXPECT_EQ(text(d, FieldId::Uuid), "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f");
  EXPECT_EQ(text(d, FieldId::Serial), "LQAC12345678");
  EXPECT_EQ(d.get(FieldId::TemperatureGpu).as_int(), 59);     // the hottest GPU sensor
  EXPECT_EQ(d.get(FieldId::TemperatureMemory).as_int(), 47);  // the MEMORY sensor
  EXPECT_EQ(d.get(FieldId::MemoryTotal).as_uint(), 128ull << 30);
  EXPECT_EQ(d.get(FieldId::MemoryUsed).as_uint(), 20ull << 30);
  EXPECT_EQ(d.get(FieldId::MemoryFree).as_uint(), 108ull << 30);
  EXPECT_EQ(d.get(FieldId::UtilizationGpu).status, FieldStatus::NotApplicable);  // first reading
  fake_sysman::state.devices[0].engines[0].stats = {1000 + 400, 10000 + 1000};
  read(*b, 0, Source::UtilizationRates, d);
  EXPECT_DOUBLE_EQ(number(d, FieldId::UtilizationGpu), 0.4);

  const auto other = read_all(*b, 1);
  EXPECT_EQ(text(other, FieldId::Uuid), "INTEL-0000:9a:00.0");
  EXPECT_EQ(other.get(FieldId::TemperatureGpu).status, FieldStatus::NotSupported);
  EXPECT_EQ(other.get(FieldId::MemoryTotal).status, FieldStatus::NotSupported);
}

TEST(IntelBackendTest, LevelZeroEnergyGivesPowerWhenHwmonHasNone) {
  fake_sysman::state = {};
  auto dev = fake_sysman::max_1550();
  dev.has_power = true;
  dev.energy = {5'000'000, 1'000'000};
  fake_sysman::state.devices = {dev};
  auto fakes = fake_sysman::functions();
  FakeRoot root;
  root.card(0, "i915", "0000:3a:00.0", "8086:0BD5");  // no hwmon
  auto [b, tree] = open_over(root, &fakes);
  ASSERT_TRUE(b);
  DeviceSnapshot d;
  read(*b, 0, Source::PowerUsage, d);
  EXPECT_EQ(d.get(FieldId::PowerDraw).status, FieldStatus::NotApplicable);
  fake_sysman::state.devices[0].energy = {5'000'000 + 300'000'000, 1'000'000 + 1'000'000};  // 300 J in 1 s
  read(*b, 0, Source::PowerUsage, d);
  EXPECT_DOUBLE_EQ(number(d, FieldId::PowerDraw), 300.0);
  read(*b, 0, Source::TotalEnergy, d);
  EXPECT_DOUBLE_EQ(number(d, FieldId::EnergyTotal), 305.0);
}

TEST(IntelBackendTest, WithoutAUsableLoaderOnlyTheFilesAreRead) {
  FakeRoot root;
  root.i915_card(0, "0000:03:00.0", "8086:56A0");
  auto [none, t1] = open_over(root, nullptr, "none");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->uses_level_zero());
  EXPECT_NE(none->describe().find("Level Zero not used"), std::string::npos);
  auto [missing, t2] = open_over(root, nullptr, "/nonexistent/libze_loader.so.1");
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing->uses_level_zero());
  EXPECT_NE(missing->describe().find("cannot load /nonexistent/libze_loader.so.1"), std::string::npos);
  fake_sysman::state = {};
  fake_sysman::state.init_result = ZE_RESULT_ERROR_UNINITIALIZED;
  auto fakes = fake_sysman::functions();
  auto [failing, t3] = open_over(root, &fakes);
  ASSERT_TRUE(failing);
  EXPECT_FALSE(failing->uses_level_zero());
  EXPECT_NE(failing->describe().find("zeInit"), std::string::npos);
}

TEST(IntelBackendTest, ACardThatLeftIsLostAndErrorsAreIntelCodes) {
  FakeRoot root;
  root.i915_card(0, "0000:03:00.0", "8086:56A0");
  auto [b, tree] = open_over(root);
  ASSERT_TRUE(b);
  root.remove("sys/class/drm/card0");
  DeviceHandle h;
  const auto rc = b->handle_by_index(0, &h);
  EXPECT_EQ(rc.reason, gpuwatch::core::ErrorReason::GpuLost);
  EXPECT_EQ(gpuwatch::core::vendor_of_code(rc.vendor_code), gpuwatch::core::Vendor::Intel);
  EXPECT_EQ(b->last_error(), rc);
  EXPECT_EQ(b->error_text(b->error_of(gpuwatch::core::ErrorReason::NoPermission)), "Permission denied");
  EXPECT_EQ(b->error_text({gpuwatch::core::ErrorReason::GpuLost, ZE_RESULT_ERROR_DEVICE_LOST}), "Level Zero: device lost");
  int cuda = 0;
  EXPECT_FALSE(b->cuda_driver_version(&cuda).ok());
  std::string version;
  EXPECT_TRUE(b->driver_version(version).ok());
  EXPECT_FALSE(version.empty());
  EXPECT_TRUE(b->open_events(1)->watched_gpus().empty());
}

}  // namespace intel_backend_test
