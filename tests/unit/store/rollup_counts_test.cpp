// The schema v3 rollup columns (store/rollup_counts.hpp): written by retention, merged
// into 1-hour rows, and backfilled when a v2 database is upgraded.
#include "store/rollup_counts.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/history_report.hpp"
#include "store/history_retention.hpp"
#include "store/history_writer.hpp"
#include "store/migrations.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace rollup_counts_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;
using testing::make_snapshot;
using testing::TempDir;

constexpr std::int64_t kMinute = 60'000, kHour = 3'600'000;
constexpr std::int64_t kT0 = 1'700'000'000'000 / kHour * kHour;

SQLite::Column value(const HistoryDatabase& db, const std::string& sql) { return db.sql().execAndGet(sql); }

TEST(RollupCounts, OneCountPerFigureAndThrottleReason) {
  EXPECT_EQ(rollup_counts().size(), 4 + throttle_reasons().size());
  EXPECT_EQ(rollup_counts()[0].name, "utilization_gpu_percent_samples");
  EXPECT_EQ(throttle_samples_column(throttle_reasons()[2]), "throttle_sw_power_cap_samples");
}

// 12 samples 10 s apart (2 minutes): utilization 0, 10, 20 ... (idle: the 0s), absent on
// sample 5; mask 0x4 on samples 0-3; energy +1 J per sample, reset to 0 at sample 3.
void write_two_minutes(HistoryDatabase& db) {
  HistoryWriter writer(db);
  double energy_j = 10;
  for (int i = 0; i < 12; ++i) {
    auto snapshot = make_snapshot(kT0 + i * 10'000, 1);
    auto& g = snapshot.devices[0];
    g.get(FieldId::UtilizationGpu) = i == 5 ? FieldReading::absent(core::FieldStatus::Failed, core::ReadError{core::ErrorReason::Uninitialized, 1})
                                            : FieldReading::of((i % 6) * 0.1);
    g.get(FieldId::ClocksEventReasonsActive) = FieldReading::of(std::uint64_t{i < 4 ? 0x4U : 0U});
    energy_j = i == 3 ? 0.0 : energy_j + 1.0;
    g.get(FieldId::EnergyTotal) = FieldReading::of(energy_j);
    writer.add(snapshot);
  }
  ASSERT_TRUE(writer.flush());
}

TEST(RollupCounts, RetentionWritesCountsAndTheEnergyCounter) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db);
  write_two_minutes(**db);
  RetentionPolicy policy;
  policy.raw = std::chrono::milliseconds(0);
  ASSERT_TRUE(apply_retention(**db, policy, kT0 + 2 * kMinute));
  const std::string minute0 = " FROM gpu_samples_1m WHERE time_ms = " + std::to_string(kT0);
  const std::string minute1 = " FROM gpu_samples_1m WHERE time_ms = " + std::to_string(kT0 + kMinute);
  EXPECT_EQ(value(**db, "SELECT samples" + minute0).getInt64(), 6);
  EXPECT_EQ(value(**db, "SELECT utilization_gpu_percent_samples" + minute0).getInt64(), 5);  // sample 5 absent
  EXPECT_EQ(value(**db, "SELECT utilization_gpu_idle_samples" + minute0).getInt64(), 1);
  EXPECT_EQ(value(**db, "SELECT utilization_gpu_idle_samples" + minute1).getInt64(), 1);
  EXPECT_EQ(value(**db, "SELECT power_draw_mw_samples" + minute0).getInt64(), 0);  // power unsupported
  EXPECT_EQ(value(**db, "SELECT clocks_event_reasons_active_samples" + minute0).getInt64(), 6);
  EXPECT_EQ(value(**db, "SELECT throttle_sw_power_cap_samples" + minute0).getInt64(), 4);
  EXPECT_EQ(value(**db, "SELECT throttle_sw_power_cap_samples" + minute1).getInt64(), 0);
  // Energy (mJ): 11, 12, 13, 0, 1, 2 J in minute 0: increases 1+1 +1+1 (the reset adds nothing).
  EXPECT_DOUBLE_EQ(value(**db, "SELECT energy_total_mj_first" + minute0).getDouble(), 11'000);
  EXPECT_DOUBLE_EQ(value(**db, "SELECT energy_total_mj_last" + minute0).getDouble(), 2'000);
  EXPECT_DOUBLE_EQ(value(**db, "SELECT energy_total_mj_increase" + minute0).getDouble(), 4'000);
  EXPECT_DOUBLE_EQ(value(**db, "SELECT energy_total_mj_first" + minute1).getDouble(), 3'000);
  EXPECT_DOUBLE_EQ(value(**db, "SELECT energy_total_mj_increase" + minute1).getDouble(), 5'000);

  // Into one hour: counts summed, energy increases plus the step between the minutes.
  policy.minute = std::chrono::milliseconds(0);
  ASSERT_TRUE(apply_retention(**db, policy, kT0 + kHour));
  const std::string hour = " FROM gpu_samples_1h WHERE time_ms = " + std::to_string(kT0);
  EXPECT_EQ(value(**db, "SELECT samples" + hour).getInt64(), 12);
  EXPECT_EQ(value(**db, "SELECT utilization_gpu_percent_samples" + hour).getInt64(), 11);
  EXPECT_EQ(value(**db, "SELECT utilization_gpu_idle_samples" + hour).getInt64(), 2);
  EXPECT_EQ(value(**db, "SELECT throttle_sw_power_cap_samples" + hour).getInt64(), 4);
  EXPECT_DOUBLE_EQ(value(**db, "SELECT energy_total_mj_first" + hour).getDouble(), 11'000);
  EXPECT_DOUBLE_EQ(value(**db, "SELECT energy_total_mj_last" + hour).getDouble(), 8'000);
  EXPECT_DOUBLE_EQ(value(**db, "SELECT energy_total_mj_increase" + hour).getDouble(), 10'000);
}

TEST(RollupCounts, AVersionTwoDatabaseUpgradesToThreeWithBackfilledCounts) {
  TempDir dir;
  {
    SQLite::Database raw(dir.file("v2.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec(schema_v1_sql());
    raw.exec(schema_v2_sql());
    raw.exec("PRAGMA user_version = 2");
    raw.exec("INSERT INTO gpus (id, gpu_key, gpu_index, first_seen_ms, last_seen_ms) VALUES (1, 'GPU-x', 0, 0, 0)");
    // Minute 0: all idle (max 4 %), mask steady at 0x4, counter 1000 -> 5000 mJ.
    // Minute 1: 3..50 % (idle share not derivable), the mask changed, no counter.
    raw.exec("INSERT INTO gpu_samples_1m (time_ms, gpu_id, samples, utilization_gpu_percent_min, "
             "utilization_gpu_percent_avg, utilization_gpu_percent_max, clocks_event_reasons_active_min, "
             "clocks_event_reasons_active_avg, clocks_event_reasons_active_max, energy_total_mj_min, "
             "energy_total_mj_avg, energy_total_mj_max) VALUES "
             "(" + std::to_string(kT0) + ", 1, 6, 0, 2, 4, 4, 4, 4, 1000, 3000, 5000), "
             "(" + std::to_string(kT0 + kMinute) + ", 1, 4, 3, 20, 50, 0, 2, 4, NULL, NULL, NULL)");
  }
  auto db = HistoryDatabase::open(dir.file("v2.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ((*db)->schema_version(), latest_schema_version());  // 3, then 4 (sources) on top
  EXPECT_GE(latest_schema_version(), 3);
  const std::string minute0 = " FROM gpu_samples_1m WHERE time_ms = " + std::to_string(kT0);
  const std::string minute1 = " FROM gpu_samples_1m WHERE time_ms = " + std::to_string(kT0 + kMinute);
  EXPECT_EQ(value(**db, "SELECT utilization_gpu_percent_samples" + minute0).getInt64(), 6);
  EXPECT_EQ(value(**db, "SELECT utilization_gpu_idle_samples" + minute0).getInt64(), 6);
  EXPECT_TRUE(value(**db, "SELECT utilization_gpu_idle_samples" + minute1).isNull());  // unknown
  EXPECT_EQ(value(**db, "SELECT power_draw_mw_samples" + minute0).getInt64(), 0);
  EXPECT_EQ(value(**db, "SELECT throttle_sw_power_cap_samples" + minute0).getInt64(), 6);
  EXPECT_EQ(value(**db, "SELECT throttle_hw_slowdown_samples" + minute0).getInt64(), 0);
  EXPECT_TRUE(value(**db, "SELECT throttle_sw_power_cap_samples" + minute1).isNull());
  EXPECT_DOUBLE_EQ(value(**db, "SELECT energy_total_mj_increase" + minute0).getDouble(), 4000);
  EXPECT_TRUE(value(**db, "SELECT energy_total_mj_first" + minute1).isNull());
  EXPECT_EQ((*db)->integrity_check(), "ok");

  // The report reads the upgraded rows: mean weighted by samples, idle share over the
  // samples where it is known, throttle time only where the mask is known.
  auto report = build_report(**db, ReportQuery{});
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->gpus.size(), 1U);
  const auto& g = report->gpus[0];
  EXPECT_EQ(g.samples, 10);
  EXPECT_DOUBLE_EQ(*g.mean_utilization_percent, (2.0 * 6 + 20.0 * 4) / 10);
  EXPECT_DOUBLE_EQ(*g.idle_share, 1.0);
  EXPECT_TRUE(g.p95_approximate);
  ASSERT_EQ(g.throttling.size(), 1U);
  EXPECT_EQ(g.throttling[0].samples, 6);
  EXPECT_NEAR(*g.energy_kwh, 4.0 / 3.6e6, 1e-15);
}

}  // namespace rollup_counts_test
}  // namespace gpuwatch::store
