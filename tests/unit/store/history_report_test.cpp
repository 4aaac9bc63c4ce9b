// `report` figures (store/history_report.hpp) on a history with known values.
#include "store/history_report.hpp"

#include <gtest/gtest.h>

#include "store/history_writer.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace history_report_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;
using testing::make_snapshot;
using testing::TempDir;

constexpr std::int64_t kT0 = 1'700'000'000'000;

// 20 samples, 1 s apart, 2 GPUs:
//  GPU 0: utilization 0, 5, 10, ... 95 %; energy counter +100 J per sample with a reset to
//         0 at sample 10; throttled by sw_power_cap (0x4) on 5 samples, hw_slowdown (0x8)
//         on 2 of them; memory used peaks at 3 GiB at sample 7; temperature peaks at 80.
//  GPU 1: utilization always 0 (idle), no energy counter, power 200 W -> energy by
//         integration; no clocks_event_reasons (absent).
std::unique_ptr<HistoryDatabase> known_history(const TempDir& dir) {
  auto db = HistoryDatabase::open(dir.file("history.db"), OpenOptions{.durable = false});
  EXPECT_TRUE(db) << db.error().message;
  HistoryWriter writer(**db);
  for (int i = 0; i < 20; ++i) {
    auto snapshot = make_snapshot(kT0 + i * 1000, 2);
    auto& g0 = snapshot.devices[0];
    g0.get(FieldId::UtilizationGpu) = FieldReading::of(i * 5 / 100.0);
    const double energy_j = i < 10 ? 1000.0 + i * 100.0 : (i - 10) * 100.0;
    g0.get(FieldId::EnergyTotal) = FieldReading::of(energy_j);
    std::uint64_t mask = 0;
    if (i >= 3 && i < 8) mask |= 0x4;
    if (i == 4 || i == 5) mask |= 0x8;
    g0.get(FieldId::ClocksEventReasonsActive) = FieldReading::of(mask);
    g0.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t(i == 7 ? 3 : 1) << 30);
    g0.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{i == 12 ? 80 : 60});
    auto& g1 = snapshot.devices[1];
    g1.get(FieldId::UtilizationGpu) = FieldReading::of(0.0);
    g1.get(FieldId::PowerDraw) = FieldReading::of(200.0);
    g1.get(FieldId::EnergyTotal) = FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
    if (i < 4) {
      core::ProcessSample p;
      p.pid = 4242;
      p.name = "train.py";
      p.used_memory_bytes = std::uint64_t(100 + i) << 20;
      g1.processes.push_back(p);
      g1.processes_status = core::FieldStatus::Ok;
    }
    writer.add(snapshot);
  }
  EXPECT_TRUE(writer.flush());
  return std::move(*db);
}

TEST(HistoryReport, FiguresOfAKnownHistory) {
  TempDir dir;
  auto db = known_history(dir);
  auto report = build_report(*db, ReportQuery{});
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->gpus.size(), 2U);
  const auto& g0 = report->gpus[0];
  EXPECT_EQ(g0.gpu.index, 0U);
  EXPECT_EQ(g0.samples, 20);
  EXPECT_DOUBLE_EQ(*g0.sample_interval_s, 1.0);
  EXPECT_DOUBLE_EQ(*g0.mean_utilization_percent, 47.5);
  EXPECT_DOUBLE_EQ(*g0.p95_utilization_percent, 90);  // nearest rank: the 19th of 20
  EXPECT_DOUBLE_EQ(*g0.idle_share, 1.0 / 20);         // only the 0 % sample is below 5 %
  EXPECT_EQ(*g0.peak_memory_used_bytes, 3ULL << 30);
  EXPECT_DOUBLE_EQ(*g0.max_temperature_c, 80);
  EXPECT_EQ(g0.energy_source, "counter");
  // 9 steps of 100 J before the reset, 9 after; the step across the reset counts nothing.
  EXPECT_NEAR(*g0.energy_kwh, 1800.0 / 3.6e6, 1e-12);
  ASSERT_TRUE(g0.throttle_mask_recorded);
  ASSERT_EQ(g0.throttling.size(), 2U);
  EXPECT_EQ(g0.throttling[0].reason, "sw_power_cap");
  EXPECT_EQ(g0.throttling[0].samples, 5);
  EXPECT_DOUBLE_EQ(g0.throttling[0].seconds, 5.0);
  EXPECT_EQ(g0.throttling[1].reason, "hw_slowdown");
  EXPECT_DOUBLE_EQ(g0.throttling[1].seconds, 2.0);

  const auto& g1 = report->gpus[1];
  EXPECT_DOUBLE_EQ(*g1.mean_utilization_percent, 0);
  EXPECT_DOUBLE_EQ(*g1.idle_share, 1.0);
  EXPECT_EQ(g1.energy_source, "estimated");
  EXPECT_NEAR(*g1.energy_kwh, 200.0 * 19 / 3.6e6, 1e-12);  // 200 W over 19 s
  EXPECT_DOUBLE_EQ(*g1.mean_power_w, 200);
  EXPECT_FALSE(g1.throttle_mask_recorded);
  EXPECT_TRUE(g1.throttling.empty());

  ASSERT_EQ(report->processes.size(), 1U);
  EXPECT_EQ(report->processes[0].pid, 4242U);
  EXPECT_EQ(*report->processes[0].max_used_memory_bytes, 103ULL << 20);
  EXPECT_EQ(report->processes[0].last_seen_ms - report->processes[0].first_seen_ms, 3000);
}

TEST(HistoryReport, AbsentFieldsStayAbsent) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db);
  {
    HistoryWriter writer(**db);
    for (int i = 0; i < 3; ++i) writer.add(make_snapshot(kT0 + i * 1000, 1));  // power absent, no energy
    ASSERT_TRUE(writer.flush());
  }
  auto report = build_report(**db, ReportQuery{});
  ASSERT_TRUE(report);
  ASSERT_EQ(report->gpus.size(), 1U);
  EXPECT_FALSE(report->gpus[0].energy_kwh);
  EXPECT_FALSE(report->gpus[0].mean_power_w);
  EXPECT_EQ(report->gpus[0].energy_source, "");
  EXPECT_FALSE(report->gpus[0].throttle_mask_recorded);
}

TEST(HistoryReport, TheRangeLimitsTheSamples) {
  TempDir dir;
  auto db = known_history(dir);
  ReportQuery query;
  query.since_ms = kT0 + 10'000;  // samples 10..19: utilization 50..95
  auto report = build_report(*db, query);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->gpus[0].samples, 10);
  EXPECT_DOUBLE_EQ(*report->gpus[0].mean_utilization_percent, 72.5);
  EXPECT_DOUBLE_EQ(*report->gpus[0].idle_share, 0);
  EXPECT_TRUE(report->processes.empty());  // the process ran in samples 0..3
  query.since_ms = kT0 + 100'000;
  auto empty = build_report(*db, query);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->gpus.empty());
}

TEST(HistoryReport, ChartBucketsCoverTheRange) {
  TempDir dir;
  auto db = known_history(dir);
  ReportQuery query;
  query.chart_points = 5;  // 20 s in buckets of 4 s
  auto report = build_report(*db, query);
  ASSERT_TRUE(report);
  const auto& chart = report->gpus[0].chart;
  ASSERT_EQ(chart.size(), 5U);
  EXPECT_EQ(chart[0].time_ms, kT0);
  EXPECT_DOUBLE_EQ(*chart[0].utilization_percent, 7.5);  // 0, 5, 10, 15
  EXPECT_FALSE(chart[0].power_w);                         // GPU 0 has no power value
  EXPECT_DOUBLE_EQ(*report->gpus[1].chart[0].power_w, 200);
}

TEST(HistoryReport, EnergyCounterIgnoresTheStepAcrossAReset) {
  EXPECT_DOUBLE_EQ(energy_from_counter_mj({100, 200, 350}), 250);
  EXPECT_DOUBLE_EQ(energy_from_counter_mj({100, 200, 5, 55}), 150);
  EXPECT_DOUBLE_EQ(energy_from_counter_mj({7}), 0);
}

}  // namespace history_report_test
}  // namespace gpuwatch::store
