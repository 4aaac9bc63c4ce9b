#include "dmon/sample.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

namespace gpuwatch::dmon {
namespace {

using core::FieldId;
using core::FieldReading;
using core::FieldStatus;

core::DeviceSnapshot h100_mig() {  // the values of the H100 MIG load capture, in base units
  core::DeviceSnapshot d;
  d.get(FieldId::PowerDraw) = FieldReading::of(438.7);
  d.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{55});
  d.get(FieldId::TemperatureMemory) = FieldReading::of(std::int64_t{61});
  for (FieldId id : {FieldId::UtilizationGpu, FieldId::UtilizationMemory, FieldId::UtilizationEncoder,
                     FieldId::UtilizationDecoder, FieldId::UtilizationJpeg, FieldId::UtilizationOfa}) {
    d.get(id) = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  }
  d.get(FieldId::ClocksCurrentMemory) = FieldReading::of(2619e6);
  d.get(FieldId::ClocksCurrentGraphics) = FieldReading::of(1980e6);
  return d;
}

TEST(DmonSample, MigParentRowMatchesCapture) {
  DmonOptions options;
  options.columns = parse_dmon_select("puc").value();
  core::Snapshot snapshot;
  snapshot.devices = {h100_mig()};
  auto rows = dmon_rows(snapshot, options.columns);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(dmon_row(options, rows[0]),
            "    0    438     55     61      -      -      -      -      -      -   2619   1980 \n");
}

TEST(DmonSample, LostGpuIsAllDashes) {
  DmonOptions options;
  options.columns = parse_dmon_select("pu").value();
  core::Snapshot snapshot;
  snapshot.devices = {h100_mig()};
  snapshot.devices[0].index = 4;
  snapshot.devices[0].state = core::DeviceState::Lost;
  auto rows = dmon_rows(snapshot, options.columns);
  EXPECT_EQ(dmon_row(options, rows[0]),
            "    4      -      -      -      -      -      -      -      -      - \n");
}

TEST(DmonSample, FieldsFollowColumns) {
  auto fields = dmon_fields(parse_dmon_select("pt").value());
  EXPECT_EQ(fields, (std::vector<FieldId>{FieldId::PowerDraw, FieldId::TemperatureGpu, FieldId::TemperatureMemory,
                                          FieldId::PcieRxThroughput, FieldId::PcieTxThroughput}));
}

TEST(DmonSample, MemoryGroupInMiB) {
  core::Snapshot snapshot;
  snapshot.devices.emplace_back();
  snapshot.devices[0].get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{40123} * 1024 * 1024 + 5);
  auto rows = dmon_rows(snapshot, parse_dmon_select("m").value());
  ASSERT_EQ(rows[0].values.size(), 3u);
  EXPECT_EQ(rows[0].values[0], 40123);
  EXPECT_FALSE(rows[0].values[1].has_value());  // BAR1 not read: "-", never 0
  snapshot.devices[0].get(FieldId::Bar1Used) = FieldReading::of(std::uint64_t{5} * 1024 * 1024);
  rows = dmon_rows(snapshot, parse_dmon_select("m").value());
  EXPECT_EQ(rows[0].values[1], 5);
}

// bar1 (-s m), pci replays (-s e), rxpci/txpci in MB/s (-s t) come from NVML, not "-".
TEST(DmonSample, Bar1PcieReplaysAndThroughputColumns) {
  auto fields = dmon_fields(parse_dmon_select("met").value());
  for (FieldId id : {FieldId::Bar1Used, FieldId::PcieReplayCounter, FieldId::PcieRxThroughput,
                     FieldId::PcieTxThroughput}) {
    EXPECT_NE(std::find(fields.begin(), fields.end(), id), fields.end());
  }
  core::Snapshot snapshot;
  snapshot.devices.emplace_back();
  auto& d = snapshot.devices[0];
  d.get(FieldId::PcieReplayCounter) = FieldReading::of(std::uint64_t{7});
  d.get(FieldId::PcieRxThroughput) = FieldReading::of(45000.0 * 1024);  // NVML: 45000 KB/s
  d.get(FieldId::PcieTxThroughput) = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  auto rows = dmon_rows(snapshot, parse_dmon_select("et").value());
  ASSERT_EQ(rows[0].values.size(), 5u);  // sbecc dbecc pci rxpci txpci
  EXPECT_EQ(rows[0].values[2], 7);
  EXPECT_EQ(rows[0].values[3], 43);  // 45000 KB/s = 43.9 MB/s
  EXPECT_FALSE(rows[0].values[4].has_value());
}

}  // namespace
}  // namespace gpuwatch::dmon

namespace gpuwatch::dmon {
namespace {

core::Snapshot counters_at(double t_s, double power_cap_s, double sw_thermal_s, std::optional<double> hw_thermal_s) {
  core::Snapshot s;
  s.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(static_cast<long>(t_s * 1000)));
  s.devices.emplace_back();
  auto& d = s.devices[0];
  d.get(FieldId::ClocksEventReasonsCountersSwPowerCap) = FieldReading::of(power_cap_s);
  d.get(FieldId::ClocksEventReasonsCountersSwThermalSlowdown) = FieldReading::of(sw_thermal_s);
  d.get(FieldId::ClocksEventReasonsCountersHwThermalSlowdown) =
      hw_thermal_s ? FieldReading::of(*hw_thermal_s) : FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  return s;
}

TEST(DmonSample, ViolationsAreRatesOverTheInterval) {
  auto columns = parse_dmon_select("v").value();
  auto before = counters_at(100.0, 10.0, 5.0, 2.0);
  auto after = counters_at(102.0, 10.5, 5.0, 2.25);  // 0.5 s of 2 s power-capped; hw thermal grew
  auto rows = dmon_rows(after, columns, &before);
  ASSERT_EQ(rows[0].values.size(), 2u);
  EXPECT_EQ(rows[0].values[0], 25);
  EXPECT_EQ(rows[0].values[1], 1);

  auto calm = counters_at(104.0, 10.5, 5.0, 2.25);
  rows = dmon_rows(calm, columns, &after);
  EXPECT_EQ(rows[0].values[0], 0);
  EXPECT_EQ(rows[0].values[1], 0);
}

TEST(DmonSample, ViolationsNeedAPreviousSampleAndACounter) {
  auto columns = parse_dmon_select("v").value();
  auto first = counters_at(100.0, 10.0, 5.0, std::nullopt);
  auto rows = dmon_rows(first, columns, nullptr);
  EXPECT_FALSE(rows[0].values[0].has_value());
  EXPECT_FALSE(rows[0].values[1].has_value());

  auto second = counters_at(101.0, 9.0, 5.0, std::nullopt);  // counter went back: reset, no rate
  rows = dmon_rows(second, columns, &first);
  EXPECT_FALSE(rows[0].values[0].has_value());
  EXPECT_EQ(rows[0].values[1], 0);  // sw thermal alone still answers
}

// Issue 9: `dmon -s pcv` showed "tviol -" on its first row while GPU 3 was thermally slowed:
// the command now takes an earlier reading when a violation column is selected.
TEST(DmonSample, issue_9_violation_columns_need_an_earlier_reading) {
  EXPECT_TRUE(has_violation_columns(parse_dmon_select("pcv").value()));
  EXPECT_TRUE(has_violation_columns({DmonColumn::ThermalViolation}));
  EXPECT_FALSE(has_violation_columns(parse_dmon_select("pucmet").value()));
  EXPECT_GT(kFirstViolationWindow.count(), 0);
}

TEST(DmonSample, ViolationGroupReadsTheThreeCounters) {
  auto fields = dmon_fields(parse_dmon_select("v").value());
  EXPECT_EQ(fields.size(), 3u);
}

}  // namespace
}  // namespace gpuwatch::dmon
