#include "tui/model.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::tui {
namespace model_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

core::DeviceSnapshot device() {
  core::DeviceSnapshot d;
  d.index = 3;
  d.get(FieldId::Name) = FieldReading::of(std::string("H100 80GB HBM3"));
  d.get(FieldId::UtilizationGpu) = FieldReading::of(0.99);
  d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{40} << 30);
  d.get(FieldId::MemoryTotal) = FieldReading::of(std::uint64_t{80} << 30);
  d.get(FieldId::PowerDraw) = FieldReading::of(415.0);
  d.get(FieldId::EnforcedPowerLimit) = FieldReading::of(700.0);
  d.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{90});
  d.get(FieldId::ClocksEventReasonsActive) = FieldReading::of(std::uint64_t{0x20});  // sw thermal
  return d;
}

live::DeviceStatus up() { return {true, true, 0.2, 0.01}; }

TEST(Model, GpuViewTakesTheValuesAndTheThrottleMarker) {
  GpuView v = make_gpu_view(device(), up(), {});
  EXPECT_EQ(v.index, 3u);
  EXPECT_EQ(v.name, "H100 80GB HBM3");
  EXPECT_EQ(v.health, GpuHealth::Up);
  EXPECT_DOUBLE_EQ(*v.memory_ratio(), 0.5);
  EXPECT_NEAR(*v.power_ratio(), 415.0 / 700.0, 1e-9);
  EXPECT_EQ(v.throttle, "thermal");
  EXPECT_FALSE(v.fan_ratio.has_value());  // not read: absent, not 0
  EXPECT_FALSE(v.pcie_rx_bytes_per_s.has_value());
}

TEST(Model, StaleKeepsTheLastValuesWithItsAgeAndLostDropsThem) {
  GpuView stale = make_gpu_view(device(), {true, false, 12.5, 0.01}, {});
  EXPECT_EQ(stale.health, GpuHealth::Stale);
  EXPECT_DOUBLE_EQ(stale.age_seconds, 12.5);
  EXPECT_TRUE(stale.utilization_ratio.has_value());
  core::DeviceSnapshot lost = device();
  lost.state = core::DeviceState::Lost;
  GpuView l = make_gpu_view(lost, {true, false, 1, 0}, {});
  EXPECT_EQ(l.health, GpuHealth::Lost);
  EXPECT_EQ(l.error, "GPU is lost");
  EXPECT_FALSE(l.utilization_ratio.has_value());
  EXPECT_EQ(make_gpu_view(device(), {}, {}).health, GpuHealth::Waiting);
}

TEST(Model, TheWorstActiveFindingOfThisGpuIsItsLine) {
  auto finding = [](const char* kind, diagnose::Severity severity, std::vector<unsigned> gpus, const char* summary) {
    diagnose::Finding f;
    f.kind = kind;
    f.severity = severity;
    f.gpus = std::move(gpus);
    f.summary = summary;
    return f;
  };
  auto info = finding("low_utilization", diagnose::Severity::Info, {3}, "info: low utilization");
  auto crit = finding("thermal_throttle", diagnose::Severity::Critical, {1, 3}, "critical thermal throttling");
  auto other = finding("memory_leak", diagnose::Severity::Critical, {6}, "leak");
  auto ended = finding("xid", diagnose::Severity::Critical, {3}, "xid");
  ended.active = false;
  std::vector<diagnose::Finding> findings = {info, crit, other, ended};
  GpuView v = make_gpu_view(device(), up(), findings);
  EXPECT_EQ(v.finding, "critical thermal throttling (+1 more)");
  EXPECT_EQ(v.finding_severity, diagnose::Severity::Critical);
}

TEST(Model, MigDevicesAreListedUnderTheGpu) {
  core::DeviceSnapshot d = device();
  d.mig_devices.push_back({"MIG-1", "3g.40gb", 1, 0, std::uint64_t{40} << 30, std::uint64_t{20} << 30, std::nullopt, std::nullopt});
  GpuView v = make_gpu_view(d, up(), {});
  ASSERT_EQ(v.mig.size(), 1u);
  EXPECT_EQ(v.mig[0].profile, "3g.40gb");
  EXPECT_DOUBLE_EQ(*v.mig[0].memory_used_bytes, static_cast<double>(std::uint64_t{20} << 30));
}

TEST(Model, ProcessesJoinWhatProcSaysAndFallBackToTheCollectorsUsers) {
  core::Snapshot s;
  s.devices.push_back(device());
  core::ProcessSample a;
  a.pid = 100;
  a.name = "python";
  a.used_memory_bytes = std::uint64_t{1} << 30;
  a.sm_ratio = 0.5;
  core::ProcessSample b;
  b.pid = 200;
  b.name = "eval";
  s.devices[0].processes = {a, b};
  std::map<std::uint32_t, HostProcess> host;
  host[100].info.user = "alice";
  host[100].info.command_line = "python train.py";
  host[100].info.cpu_ratio = 1.25;
  host[100].elapsed_seconds = 61;
  auto v = make_process_views(s, host, {{200, "bob"}});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].gpu, 3u);
  EXPECT_EQ(v[0].command, "python train.py");
  EXPECT_EQ(v[0].user, "alice");
  EXPECT_DOUBLE_EQ(*v[0].cpu_ratio, 1.25);
  EXPECT_DOUBLE_EQ(*v[0].gpu_ratio, 0.5);
  EXPECT_EQ(v[1].user, "bob");
  EXPECT_EQ(v[1].command, "eval");  // NVML's name when /proc has nothing
  EXPECT_FALSE(v[1].gpu_memory_bytes.has_value());
  EXPECT_FALSE(v[1].cpu_ratio.has_value());
}

}  // namespace model_test
}  // namespace gpuwatch::tui
