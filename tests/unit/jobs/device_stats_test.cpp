#include "jobs/device_stats.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::jobs {
namespace device_stats_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

TimePoint at_s(double s) { return TimePoint(std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000))); }

core::DeviceSnapshot device(double util, std::optional<double> power_w, std::optional<double> energy_j) {
  core::DeviceSnapshot d;
  d.index = 2;
  d.get(FieldId::Uuid) = FieldReading::of(std::string("GPU-2"));
  d.get(FieldId::Name) = FieldReading::of(std::string("H100"));
  d.get(FieldId::UtilizationGpu) = FieldReading::of(util);
  d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{1000});
  d.get(FieldId::MemoryTotal) = FieldReading::of(std::uint64_t{8000});
  d.get(FieldId::PowerDraw) = power_w ? FieldReading::of(*power_w) : FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  d.get(FieldId::EnergyTotal) = energy_j ? FieldReading::of(*energy_j) : FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  return d;
}

TEST(DeviceStats, UtilizationMeanAndNearestRankP95) {
  DeviceStats s;
  for (int i = 1; i <= 100; ++i) observe(s, device(i / 100.0, 100, std::nullopt), at_s(i), {}, {});
  EXPECT_NEAR(*utilization_mean(s), 0.505, 1e-9);
  EXPECT_NEAR(*utilization_percentile(s, 0.95), 0.95, 1e-9);
  EXPECT_EQ(s.samples, 100u);
  EXPECT_FALSE(s.used);
}

TEST(DeviceStats, NoUtilizationIsAbsentNotZero) {
  DeviceStats s;
  auto d = device(0.5, 100, std::nullopt);
  d.get(FieldId::UtilizationGpu) = FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  observe(s, d, at_s(0), {}, {});
  EXPECT_EQ(utilization_mean(s), std::nullopt);
  EXPECT_EQ(utilization_percentile(s, 0.95), std::nullopt);
}

TEST(DeviceStats, EnergyFromTheCounterWhenThereIsOne) {
  DeviceStats s;
  observe(s, device(1, 300, 1000), at_s(0), {7}, {});
  observe(s, device(1, 300, 1400), at_s(1), {7}, {});
  observe(s, device(1, 300, 1900), at_s(2), {7}, {});
  auto e = energy_of(s);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->joules, 900);
  EXPECT_STREQ(e->source, "counter");
  EXPECT_TRUE(s.used);
  EXPECT_EQ(s.pids, std::set<std::uint32_t>{7});
}

TEST(DeviceStats, EnergyIntegratesPowerWithoutACounterAndSkipsLongGaps) {
  DeviceStats s;
  observe(s, device(1, 100, std::nullopt), at_s(0), {}, {});
  observe(s, device(1, 300, std::nullopt), at_s(2), {}, {});   // trapezoid: 400 J
  observe(s, device(1, 300, std::nullopt), at_s(100), {}, {}); // a 98 s gap: not integrated
  auto e = energy_of(s);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->joules, 400);
  EXPECT_STREQ(e->source, "estimated");
}

TEST(DeviceStats, ACounterThatGoesBackFallsBackToPower) {
  DeviceStats s;
  observe(s, device(1, 200, 5000), at_s(0), {}, {});
  observe(s, device(1, 200, 10), at_s(1), {}, {});
  EXPECT_STREQ(energy_of(s)->source, "estimated");
  EXPECT_DOUBLE_EQ(energy_of(s)->joules, 200);
}

TEST(DeviceStats, NoPowerAndNoCounterIsNoEnergy) {
  DeviceStats s;
  observe(s, device(1, std::nullopt, std::nullopt), at_s(0), {}, {});
  observe(s, device(1, std::nullopt, std::nullopt), at_s(1), {}, {});
  EXPECT_EQ(energy_of(s), std::nullopt);
}

TEST(DeviceStats, ThrottleTimeFromCountersElseFromSampledReasons) {
  DeviceStats s;
  for (int i = 0; i <= 4; ++i) {
    auto d = device(1, 300, std::nullopt);
    d.get(FieldId::ClocksEventReasonsCountersHwThermalSlowdown) = FieldReading::of(10.0 + i * 0.5);  // +2 s
    d.get(FieldId::ClocksEventReasonsHwSlowdown) = FieldReading::of(i >= 2);  // active at samples 2, 3, 4
    d.get(FieldId::ClocksEventReasonsSwPowerCap) = FieldReading::of(false);
    observe(s, d, at_s(i), {}, {});
  }
  auto t = throttle_seconds(s);
  EXPECT_DOUBLE_EQ(t.at("hw_thermal_slowdown"), 2.0);
  EXPECT_DOUBLE_EQ(t.at("hw_slowdown"), 3.0);
  EXPECT_EQ(t.count("sw_power_cap"), 0u);  // read, never active: not listed
}

TEST(DeviceStats, PeakMemoryAndMigDevicesOfTheJob) {
  DeviceStats s;
  auto d = device(0.5, 100, std::nullopt);
  core::MigDeviceSample mig;
  mig.uuid = "MIG-abc";
  mig.profile = "3g.40gb";
  mig.gpu_instance_id = 1;
  mig.memory_used_bytes = 500;
  mig.memory_total_bytes = 4000;
  d.mig_devices.push_back(mig);
  observe(s, d, at_s(0), {9}, {1});
  d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{3000});
  d.mig_devices[0].memory_used_bytes = 700;
  observe(s, d, at_s(1), {9}, {1});
  EXPECT_EQ(s.memory_peak_bytes, 3000u);
  EXPECT_EQ(s.memory_total_bytes, 8000u);
  ASSERT_EQ(s.mig.size(), 1u);
  EXPECT_EQ(s.mig.at(1).uuid, "MIG-abc");
  EXPECT_EQ(s.mig.at(1).memory_peak_bytes, 700u);
}

}  // namespace device_stats_test
}  // namespace gpuwatch::jobs
