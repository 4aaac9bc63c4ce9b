// `report` over a history that retention rolled up (store/history_report.hpp): the same
// samples summarised from raw rows only and from hour + minute rollups + raw rows must
// give the same figures, except p95 (approximate from rollups, and said so).
#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/history_report.hpp"
#include "store/history_retention.hpp"
#include "store/history_writer.hpp"
#include "store/migrations.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace history_report_rollups_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;
using testing::make_snapshot;
using testing::TempDir;

constexpr std::int64_t kMinute = 60'000, kHour = 3'600'000;
constexpr std::int64_t kT0 = 1'700'000'000'000 / kHour * kHour;  // a whole hour
constexpr int kSamples = 1080;                                    // 3 h, one every 10 s

// GPU 0: utilization (i * 37) % 101 percent; energy counter +100 J per sample with resets
//        to 0 at samples 100 and 400 (mid-minute, in what becomes the 1-hour and the
//        1-minute part); sw_power_cap when i % 7 == 0, hw_slowdown when i % 13 == 0;
//        temperature 60 but 91 at sample 50 (in the hour part); memory peak at sample 500.
// GPU 1: utilization 0 or 30 %, power 150..250 W (no counter), no throttle mask.
std::unique_ptr<HistoryDatabase> three_hours(const std::string& path) {
  auto db = HistoryDatabase::open(path, OpenOptions{.durable = false});
  EXPECT_TRUE(db) << db.error().message;
  HistoryWriter writer(**db);
  double energy_j = 5000;
  for (int i = 0; i < kSamples; ++i) {
    auto snapshot = make_snapshot(kT0 + i * 10'000, 2);
    auto& g0 = snapshot.devices[0];
    g0.get(FieldId::UtilizationGpu) = FieldReading::of((i * 37 % 101) / 100.0);
    energy_j = (i == 100 || i == 400) ? 0.0 : energy_j + 100.0;
    g0.get(FieldId::EnergyTotal) = FieldReading::of(energy_j);
    std::uint64_t mask = 0;
    if (i % 7 == 0) mask |= 0x4;
    if (i % 13 == 0) mask |= 0x8;
    g0.get(FieldId::ClocksEventReasonsActive) = FieldReading::of(mask);
    g0.get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{i == 50 ? 91 : 60});
    g0.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t(i == 500 ? 7 : 2) << 30);
    auto& g1 = snapshot.devices[1];
    g1.get(FieldId::UtilizationGpu) = FieldReading::of(i % 4 == 0 ? 0.3 : 0.0);
    g1.get(FieldId::PowerDraw) = FieldReading::of(150.0 + (i % 3) * 50.0);
    writer.add(snapshot);
  }
  EXPECT_TRUE(writer.flush());
  return std::move(*db);
}

// Hour rows for [T0, T0+1h), minute rows for [T0+1h, T0+2h), raw rows after.
std::unique_ptr<HistoryDatabase> rolled_up(const TempDir& dir) {
  auto db = three_hours(dir.file("rolled.db"));
  RetentionPolicy policy;
  policy.raw = std::chrono::hours(1);
  policy.minute = std::chrono::hours(2);
  auto result = apply_retention(*db, policy, kT0 + 3 * kHour);
  EXPECT_TRUE(result) << result.error().message;
  return db;
}

std::int64_t count(const HistoryDatabase& db, const std::string& table) {
  return db.sql().execAndGet("SELECT count(*) FROM " + table).getInt64();
}

TEST(HistoryReportRollups, SameFiguresAsFromRawSamples) {
  TempDir dir;
  auto raw_db = three_hours(dir.file("raw.db"));
  auto rolled_db = rolled_up(dir);
  ASSERT_EQ(count(*rolled_db, "gpu_samples"), 2 * 360);
  ASSERT_EQ(count(*rolled_db, "gpu_samples_1m"), 2 * 60);
  ASSERT_EQ(count(*rolled_db, "gpu_samples_1h"), 2);
  auto truth = build_report(*raw_db, ReportQuery{});
  auto report = build_report(*rolled_db, ReportQuery{});
  ASSERT_TRUE(truth && report);
  ASSERT_EQ(report->gpus.size(), 2U);
  for (std::size_t g = 0; g < 2; ++g) {
    SCOPED_TRACE(g);
    const auto& want = truth->gpus[g];
    const auto& got = report->gpus[g];
    EXPECT_EQ(got.samples, kSamples);
    EXPECT_EQ(got.rollup_samples, 720);
    EXPECT_EQ(got.first_ms, kT0);
    EXPECT_DOUBLE_EQ(*got.sample_interval_s, 10.0);
    EXPECT_NEAR(*got.mean_utilization_percent, *want.mean_utilization_percent, 1e-9);
    EXPECT_DOUBLE_EQ(*got.idle_share, *want.idle_share);
    EXPECT_EQ(*got.peak_memory_used_bytes, *want.peak_memory_used_bytes);
    EXPECT_DOUBLE_EQ(*got.max_temperature_c, *want.max_temperature_c);
    EXPECT_EQ(got.throttle_mask_recorded, want.throttle_mask_recorded);
    ASSERT_EQ(got.throttling.size(), want.throttling.size());
    for (std::size_t r = 0; r < got.throttling.size(); ++r) {
      EXPECT_EQ(got.throttling[r].reason, want.throttling[r].reason);
      EXPECT_EQ(got.throttling[r].samples, want.throttling[r].samples);
      EXPECT_DOUBLE_EQ(got.throttling[r].seconds, want.throttling[r].seconds);
    }
    EXPECT_EQ(got.energy_source, want.energy_source);
    EXPECT_TRUE(got.p95_approximate);
    EXPECT_FALSE(want.p95_approximate);
    EXPECT_GE(*got.p95_utilization_percent, *got.mean_utilization_percent);
  }
  // GPU 0: the counter's increases are exact across rollups, resets included.
  EXPECT_EQ(report->gpus[0].energy_source, "counter");
  EXPECT_NEAR(*report->gpus[0].energy_kwh, *truth->gpus[0].energy_kwh, 1e-12);
  EXPECT_NEAR(*truth->gpus[0].energy_kwh, (kSamples - 1 - 2) * 100.0 / 3.6e6, 1e-12);
  EXPECT_DOUBLE_EQ(*report->gpus[0].max_temperature_c, 91);  // only in the 1-hour part
  EXPECT_EQ(*report->gpus[0].peak_memory_used_bytes, 7ULL << 30);  // only in the 1-minute part
  EXPECT_EQ(report->gpus[0].throttling[0].samples, (kSamples + 6) / 7);
  // GPU 1: energy from power; rollups count mean power x samples x interval.
  EXPECT_EQ(report->gpus[1].energy_source, "estimated");
  EXPECT_NEAR(*report->gpus[1].energy_kwh, *truth->gpus[1].energy_kwh, 0.01 * *truth->gpus[1].energy_kwh);
  EXPECT_NEAR(*report->gpus[1].mean_power_w, *truth->gpus[1].mean_power_w, 1e-9);
  EXPECT_DOUBLE_EQ(*report->gpus[1].max_power_w, 250);
  // Which source covered what.
  ASSERT_TRUE(report->rollup_1h && report->rollup_1m && report->raw);
  EXPECT_EQ(report->rollup_1h->first_ms, kT0);
  EXPECT_EQ(report->rollup_1m->first_ms, kT0 + kHour);
  EXPECT_EQ(report->rollup_1m->last_ms, kT0 + 2 * kHour - kMinute);
  EXPECT_EQ(report->raw->first_ms, kT0 + 2 * kHour);
  EXPECT_FALSE(truth->rollup_1m || truth->rollup_1h);
}

TEST(HistoryReportRollups, ARangeInsideTheRawWindowIsExact) {
  TempDir dir;
  auto db = rolled_up(dir);
  ReportQuery query;
  query.since_ms = kT0 + 2 * kHour;
  auto report = build_report(*db, query);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->gpus[0].samples, 360);
  EXPECT_EQ(report->gpus[0].rollup_samples, 0);
  EXPECT_FALSE(report->gpus[0].p95_approximate);
  EXPECT_FALSE(report->rollup_1m || report->rollup_1h);
}

TEST(HistoryReportRollups, ABucketCountsWhenItStartsInTheRange) {
  TempDir dir;
  auto db = rolled_up(dir);
  ReportQuery query;
  query.since_ms = kT0 + 30 * kMinute;  // the 1-hour bucket at T0 starts before: left out
  auto report = build_report(*db, query);
  ASSERT_TRUE(report);
  EXPECT_EQ(report->gpus[0].samples, 720);
  EXPECT_FALSE(report->rollup_1h);
  query.since_ms = kT0 + 90 * kMinute;
  query.until_ms = kT0 + 2 * kHour - 1;  // minutes 90..119 only
  auto minutes = build_report(*db, query);
  ASSERT_TRUE(minutes);
  EXPECT_EQ(minutes->gpus[0].samples, 180);
  EXPECT_FALSE(minutes->raw);
}

TEST(HistoryReportRollups, AnOverlappingRollupRowIsNotCountedTwice) {
  TempDir dir;
  auto db = rolled_up(dir);
  // A minute row beside raw rows (e.g. a clock stepped back after a rollup): the raw
  // rows win, and the 1-minute row is left out.
  db->sql().exec("INSERT INTO gpu_samples_1m (time_ms, gpu_id, samples, utilization_gpu_percent_avg, "
                 "utilization_gpu_percent_samples) SELECT " + std::to_string(kT0 + 2 * kHour) +
                 ", gpu_id, 6, 100, 6 FROM gpu_samples_1m GROUP BY gpu_id");
  auto report = build_report(*db, ReportQuery{});
  ASSERT_TRUE(report);
  EXPECT_EQ(report->gpus[0].samples, kSamples);
  EXPECT_EQ(report->rollup_1m->last_ms, kT0 + 2 * kHour - kMinute);
}

TEST(HistoryReportRollups, ChartCoversTheRolledUpPeriod) {
  TempDir dir;
  auto db = rolled_up(dir);
  ReportQuery query;
  query.chart_points = 18;  // 3 h in buckets of 10 minutes
  auto report = build_report(*db, query);
  ASSERT_TRUE(report);
  const auto& chart = report->gpus[1].chart;
  ASSERT_FALSE(chart.empty());
  EXPECT_EQ(chart.front().time_ms, kT0);
  EXPECT_GE(chart.back().time_ms, kT0 + 2 * kHour);
  EXPECT_NEAR(*chart.front().utilization_percent, 7.5, 1e-9);  // 30 % on every 4th sample
  EXPECT_TRUE(chart.front().power_w);
}

TEST(HistoryReportRollups, AnUnmigratedVersionTwoFileIsReportedFromRawSamples) {
  TempDir dir;
  {
    SQLite::Database raw(dir.file("v2.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec(schema_v1_sql());
    raw.exec(schema_v2_sql());
    raw.exec("PRAGMA user_version = 2");
    raw.exec("INSERT INTO gpus (id, gpu_key, gpu_index, first_seen_ms, last_seen_ms) VALUES (1, 'GPU-x', 0, 0, 0)");
    raw.exec("INSERT INTO gpu_samples (time_ms, gpu_id, utilization_gpu_percent) VALUES (" +
             std::to_string(kT0 + kHour) + ", 1, 40)");
    raw.exec("INSERT INTO gpu_samples_1m (time_ms, gpu_id, samples, utilization_gpu_percent_avg) VALUES (" +
             std::to_string(kT0) + ", 1, 6, 10)");
  }
  // report opens read-only: it cannot add the v3 columns, so it leaves the rollups out.
  auto db = HistoryDatabase::open(dir.file("v2.db"), OpenOptions{.read_only = true});
  ASSERT_TRUE(db) << db.error().message;
  auto report = build_report(**db, ReportQuery{});
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->gpus.size(), 1U);
  EXPECT_EQ(report->gpus[0].samples, 1);
  EXPECT_DOUBLE_EQ(*report->gpus[0].mean_utilization_percent, 40);
  EXPECT_FALSE(report->rollup_1m);
}

}  // namespace history_report_rollups_test
}  // namespace gpuwatch::store
