#include "capi/snapshot_keys.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "capi/diagnose_values.hpp"

namespace gpuwatch::capi {
namespace snapshot_keys_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

core::DeviceSnapshot gpu(unsigned index) {
  core::DeviceSnapshot d;
  d.index = index;
  d.get(FieldId::UtilizationGpu) = FieldReading::of(0.87);
  d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{3} << 30);
  d.get(FieldId::MemoryTotal) = FieldReading::of(std::uint64_t{80} << 30);
  d.get(FieldId::PowerDraw) = FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  d.get(FieldId::TemperatureGpu) = FieldReading::absent(core::FieldStatus::Failed, core::ReadError{core::ErrorReason::Other, 999});
  d.get(FieldId::ClocksCurrentSm) = FieldReading::of(std::uint64_t{1'410'000'000});
  d.get(FieldId::ClocksEventReasonsHwThermalSlowdown) = FieldReading::of(true);
  d.get(FieldId::ClocksEventReasonsSwPowerCap) = FieldReading::of(false);
  return d;
}

TEST(SnapshotKeys, ConvertsBaseUnitsAndLeavesAbsentValuesOut) {
  core::Snapshot s;
  s.devices = {gpu(0), gpu(1)};
  const auto entries = flatten(s, std::vector<unsigned>{1});
  const FlatEntries expected = {{"gpu1/util_percent", 87.0},       {"gpu1/memory_used_gib", 3.0},
                                {"gpu1/memory_total_gib", 80.0},   {"gpu1/sm_clock_mhz", 1410.0},
                                {"gpu1/throttle_sw_power_cap", 0}, {"gpu1/throttle_hw_thermal", 1}};
  EXPECT_EQ(entries, expected);  // no power_w, temperature_c: absent, not 0; no gpu0: not selected
}

TEST(SnapshotKeys, ALostGpuHasNoEntries) {
  core::Snapshot s;
  s.devices = {gpu(0)};
  s.devices[0].state = core::DeviceState::Lost;
  EXPECT_TRUE(flatten(s, std::vector<unsigned>{0}).empty());
}

TEST(SnapshotKeys, JsonCarriesTimeGpusAndEntries) {
  const auto doc = nlohmann::json::parse(to_json(1.5e9, std::vector<unsigned>{0, 2}, {{"gpu0/power_w", 300.5}}));
  EXPECT_EQ(doc["time"], 1.5e9);
  EXPECT_EQ(doc["gpus"], nlohmann::json::array({0, 2}));
  EXPECT_EQ(doc["gpu0/power_w"], 300.5);
}

TEST(SnapshotKeys, EveryKeyIsSampled) {
  const auto fields = sampled_fields();
  for (const auto& key : snapshot_keys())
    EXPECT_NE(std::find(fields.begin(), fields.end(), key.field), fields.end()) << key.suffix;
}

TEST(DiagnoseValues, ThresholdsAndAdviceComeFromTheDiagnoseEngine) {
  EXPECT_GT(diagnose_threshold("input_starved.warn_share").value(), diagnose_threshold("input_starved.info_share").value());
  EXPECT_EQ(diagnose_threshold("input_starved.nope"), std::nullopt);
  ASSERT_TRUE(diagnose_advice("input_starved", 0));
  EXPECT_NE(diagnose_advice("input_starved", 0)->find("num_workers"), std::string_view::npos);
  EXPECT_EQ(diagnose_advice("input_starved", 100), std::nullopt);
  EXPECT_EQ(diagnose_advice("no_such_kind", 0), std::nullopt);
}

}  // namespace snapshot_keys_test
}  // namespace gpuwatch::capi
