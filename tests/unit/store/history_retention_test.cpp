// Retention and downsampling (store/history_retention.hpp), with explicit times.
#include "store/history_retention.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "store/history_reader.hpp"
#include "store/history_writer.hpp"
#include "store/migrations.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace history_retention_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;
using testing::make_snapshot;
using testing::TempDir;

constexpr std::int64_t kMinute = 60'000, kHour = 3'600'000, kDay = 24 * kHour;
constexpr std::int64_t kT0 = 1'700'000'000'000 / kHour * kHour;  // a whole hour

std::unique_ptr<HistoryDatabase> open_db(const TempDir& dir) {
  auto db = HistoryDatabase::open(dir.file("history.db"), OpenOptions{.durable = false});
  EXPECT_TRUE(db) << db.error().message;
  return std::move(*db);
}

std::int64_t integer(const HistoryDatabase& db, const std::string& sql) { return db.sql().execAndGet(sql).getInt64(); }
double real(const HistoryDatabase& db, const std::string& sql) { return db.sql().execAndGet(sql).getDouble(); }
bool is_null(const HistoryDatabase& db, const std::string& sql) { return db.sql().execAndGet(sql).isNull(); }

// One GPU, one sample every 10 s from T for N samples; utilization = i % 7 (percent),
// temperature absent on every third sample, power always absent.
void write_samples(HistoryDatabase& db, std::int64_t t, int n) {
  HistoryWriter writer(db);
  for (int i = 0; i < n; ++i) {
    auto snapshot = make_snapshot(t + i * 10'000, 1);
    snapshot.devices[0].get(FieldId::UtilizationGpu) = FieldReading::of((i % 7) / 100.0);
    if (i % 3 == 0) snapshot.devices[0].get(FieldId::TemperatureGpu) = FieldReading::absent(core::FieldStatus::Failed, core::ReadError{core::ErrorReason::Uninitialized, 1});
    else snapshot.devices[0].get(FieldId::TemperatureGpu) = FieldReading::of(std::int64_t{50 + i});
    writer.add(snapshot);
  }
  ASSERT_TRUE(writer.flush());
}

TEST(HistoryRetention, MigrationTwoAddsTheRollupTables) {
  TempDir dir;
  auto db = open_db(dir);
  EXPECT_GE(db->schema_version(), 2);
  for (const auto& table : rollup_tables()) {
    EXPECT_EQ(integer(*db, "SELECT count(*) FROM pragma_table_info('" + table + "') WHERE name IN "
                          "('time_ms', 'gpu_id', 'samples', 'utilization_gpu_percent_min', "
                          "'utilization_gpu_percent_avg', 'utilization_gpu_percent_max')"),
              6)
        << table;
  }
}

TEST(HistoryRetention, AVersionOneFileWithDataMigratesToTwo) {
  TempDir dir;
  {
    SQLite::Database raw(dir.file("v1.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec(schema_v1_sql());
    raw.exec("INSERT INTO gpus (id, gpu_key, first_seen_ms, last_seen_ms) VALUES (1, 'GPU-x', 0, 0)");
    raw.exec("INSERT INTO gpu_samples (time_ms, gpu_id, utilization_gpu_percent) VALUES (1000, 1, 42)");
    raw.exec("PRAGMA user_version = 1");
  }
  auto db = HistoryDatabase::open(dir.file("v1.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ((*db)->schema_version(), latest_schema_version());
  EXPECT_EQ(integer(**db, "SELECT utilization_gpu_percent FROM gpu_samples"), 42);
  EXPECT_EQ(integer(**db, "SELECT count(*) FROM gpu_samples_1m"), 0);
  EXPECT_EQ(integer(**db, "SELECT count(*) FROM gpu_samples_1h"), 0);
}

TEST(HistoryRetention, RawOlderThanTheWindowBecomesOneMinuteMinAvgMax) {
  TempDir dir;
  auto db = open_db(dir);
  write_samples(*db, kT0, 12);  // 2 minutes: samples 0-5 in minute 0, 6-11 in minute 1
  RetentionPolicy policy;
  policy.raw = std::chrono::hours(24);
  // Now = 1 day + 90 s after T0: the cut-off is T0 + 1 min (rounded down), so only minute 0 goes.
  auto result = apply_retention(*db, policy, kT0 + kDay + 90'000);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->raw_rolled_up, 6);
  EXPECT_EQ(result->minute_rows_written, 1);
  EXPECT_EQ(integer(*db, "SELECT count(*) FROM gpu_samples"), 6);
  EXPECT_EQ(integer(*db, "SELECT min(time_ms) FROM gpu_samples"), kT0 + kMinute);
  EXPECT_EQ(integer(*db, "SELECT time_ms FROM gpu_samples_1m"), kT0);
  EXPECT_EQ(integer(*db, "SELECT samples FROM gpu_samples_1m"), 6);
  // utilization 0,1,2,3,4,5 %
  EXPECT_DOUBLE_EQ(real(*db, "SELECT utilization_gpu_percent_min FROM gpu_samples_1m"), 0);
  EXPECT_DOUBLE_EQ(real(*db, "SELECT utilization_gpu_percent_avg FROM gpu_samples_1m"), 2.5);
  EXPECT_DOUBLE_EQ(real(*db, "SELECT utilization_gpu_percent_max FROM gpu_samples_1m"), 5);
  // temperature: NULL at i = 0, 3; values 51, 52, 54, 55 -> avg over the non-NULL ones
  EXPECT_DOUBLE_EQ(real(*db, "SELECT temperature_gpu_c_avg FROM gpu_samples_1m"), 53);
  EXPECT_DOUBLE_EQ(real(*db, "SELECT temperature_gpu_c_min FROM gpu_samples_1m"), 51);
  // power: NULL on every sample -> NULL, not 0
  EXPECT_TRUE(is_null(*db, "SELECT power_draw_mw_avg FROM gpu_samples_1m"));
  EXPECT_TRUE(is_null(*db, "SELECT power_draw_mw_max FROM gpu_samples_1m"));
  // a real zero stays 0
  EXPECT_TRUE(!is_null(*db, "SELECT fan_speed_percent_max FROM gpu_samples_1m"));
  EXPECT_DOUBLE_EQ(real(*db, "SELECT fan_speed_percent_max FROM gpu_samples_1m"), 0);
}

TEST(HistoryRetention, RollupsReadBackAsSnapshotsPerBucket) {
  TempDir dir;
  auto db = open_db(dir);
  write_samples(*db, kT0, 12);
  RetentionPolicy policy;
  policy.raw = std::chrono::hours(1);
  ASSERT_TRUE(apply_retention(*db, policy, kT0 + 2 * kHour));
  HistoryQuery query;
  query.resolution = Resolution::Minute;
  auto avg = read_history(*db, query);
  ASSERT_TRUE(avg) << avg.error().message;
  ASSERT_EQ(avg->size(), 2U);
  EXPECT_EQ(to_unix_ms(avg->at(0).timestamp), kT0);
  EXPECT_EQ(to_unix_ms(avg->at(1).timestamp), kT0 + kMinute);
  const auto& device = avg->at(0).devices.at(0);
  EXPECT_DOUBLE_EQ(*device.get(FieldId::UtilizationGpu).as_double(), 0.025);  // 2.5 %
  EXPECT_EQ(*device.get(FieldId::TemperatureGpu).as_int(), 53);
  EXPECT_FALSE(device.get(FieldId::PowerDraw).ok());  // NULL in every sample: absent
  EXPECT_EQ(*device.get(FieldId::Uuid).as_string(), "GPU-00000000");
  query.statistic = Statistic::Max;
  auto max = read_history(*db, query);
  ASSERT_TRUE(max);
  EXPECT_DOUBLE_EQ(*max->at(0).devices.at(0).get(FieldId::UtilizationGpu).as_double(), 0.05);
  query.resolution = Resolution::Hour;
  // No 1-hour rollup exists yet: the 1-minute rows are aggregated into their hour on the fly.
  auto hours = read_history(*db, query);
  ASSERT_TRUE(hours);
  ASSERT_EQ(hours->size(), 1U);
  double minute_max = 0;  // the hour's max (query.statistic is Max) is the max of its minutes
  for (const auto& minute : *max) minute_max = std::max(minute_max, *minute.devices.at(0).get(FieldId::UtilizationGpu).as_double());
  EXPECT_DOUBLE_EQ(*hours->at(0).devices.at(0).get(FieldId::UtilizationGpu).as_double(), minute_max);
}

TEST(HistoryRetention, NothingInsideTheWindowIsTouchedAndRerunningIsANoOp) {
  TempDir dir;
  auto db = open_db(dir);
  write_samples(*db, kT0, 12);
  RetentionPolicy policy;  // 7 days raw
  auto result = apply_retention(*db, policy, kT0 + kDay);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->raw_rolled_up, 0);
  EXPECT_EQ(integer(*db, "SELECT count(*) FROM gpu_samples"), 12);
  EXPECT_EQ(integer(*db, "SELECT count(*) FROM gpu_samples_1m"), 0);
  auto later = apply_retention(*db, policy, kT0 + 8 * kDay);
  ASSERT_TRUE(later);
  EXPECT_EQ(later->raw_rolled_up, 12);
  EXPECT_EQ(integer(*db, "SELECT count(*) FROM gpu_samples_1m"), 2);
  auto again = apply_retention(*db, policy, kT0 + 8 * kDay);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->raw_rolled_up, 0);
  EXPECT_EQ(integer(*db, "SELECT count(*) FROM gpu_samples_1m"), 2);
}

TEST(HistoryRetention, ProcessSamplesGoWithTheRawSamples) {
  TempDir dir;
  auto db = open_db(dir);
  HistoryWriter writer(*db);
  auto snapshot = make_snapshot(kT0, 1);
  core::ProcessSample process;
  process.pid = 42;
  process.name = "train.py";
  snapshot.devices[0].processes.push_back(process);
  snapshot.devices[0].processes_status = core::FieldStatus::Ok;
  writer.add(snapshot);
  ASSERT_TRUE(writer.flush());
  ASSERT_EQ(integer(*db, "SELECT count(*) FROM process_samples"), 1);
  auto result = apply_retention(*db, RetentionPolicy{}, kT0 + 8 * kDay);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->process_rows_deleted, 1);
  EXPECT_EQ(integer(*db, "SELECT count(*) FROM process_samples"), 0);
}

TEST(HistoryRetention, MinutesBecomeHoursWeightedBySamples) {
  TempDir dir;
  auto db = open_db(dir);
  write_samples(*db, kT0, 12);                  // minute 0: util avg 2.5 (6 samples); minute 1: 6,0,1,2,3,4 -> 2.666
  write_samples(*db, kT0 + 30 * kMinute, 1);    // minute 30: util 0 (1 sample)
  RetentionPolicy policy;
  policy.raw = std::chrono::hours(1);
  policy.minute = std::chrono::hours(24);
  ASSERT_TRUE(apply_retention(*db, policy, kT0 + 2 * kHour));
  EXPECT_EQ(integer(*db, "SELECT count(*) FROM gpu_samples_1m"), 3);
  auto result = apply_retention(*db, policy, kT0 + kDay + 2 * kHour);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->minute_rolled_up, 3);
  EXPECT_EQ(result->hour_rows_written, 1);
  EXPECT_EQ(integer(*db, "SELECT count(*) FROM gpu_samples_1m"), 0);
  EXPECT_EQ(integer(*db, "SELECT samples FROM gpu_samples_1h"), 13);
  EXPECT_EQ(integer(*db, "SELECT time_ms FROM gpu_samples_1h"), kT0);
  // (0+1+2+3+4+5 + 6+0+1+2+3+4 + 0) / 13
  EXPECT_NEAR(real(*db, "SELECT utilization_gpu_percent_avg FROM gpu_samples_1h"), 31.0 / 13.0, 1e-9);
  EXPECT_DOUBLE_EQ(real(*db, "SELECT utilization_gpu_percent_max FROM gpu_samples_1h"), 6);
  EXPECT_TRUE(is_null(*db, "SELECT power_draw_mw_avg FROM gpu_samples_1h"));

  policy.hour = std::chrono::hours(24 * 30);
  auto expired = apply_retention(*db, policy, kT0 + 31 * kDay);
  ASSERT_TRUE(expired);
  EXPECT_EQ(expired->hour_deleted, 1);
  EXPECT_EQ(integer(*db, "SELECT count(*) FROM gpu_samples_1h"), 0);
}

TEST(HistoryRetention, MaxSizeDropsTheOldestRawSamplesFirst) {
  TempDir dir;
  auto db = open_db(dir);
  {
    HistoryWriter writer(*db);
    for (int i = 0; i < 4000; ++i) writer.add(make_snapshot(kT0 + i * 1000, 4));
    ASSERT_TRUE(writer.flush());
  }
  // An older rollup row, which must survive while raw rows can still be dropped.
  db->sql().exec("INSERT INTO gpu_samples_1h (time_ms, gpu_id, samples) VALUES (" + std::to_string(kT0 - kDay) + ", 1, 1)");
  const std::int64_t before = used_bytes(*db);
  RetentionPolicy policy;
  policy.max_size_bytes = before / 2;
  auto result = apply_retention(*db, policy, kT0 + kHour * 2);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_GT(result->deleted_for_size, 0);
  EXPECT_LE(used_bytes(*db), before / 2);
  EXPECT_GT(integer(*db, "SELECT count(*) FROM gpu_samples"), 4000);  // not everything went
  EXPECT_EQ(integer(*db, "SELECT max(time_ms) FROM gpu_samples"), kT0 + 3999 * 1000);  // newest kept
  EXPECT_GT(integer(*db, "SELECT min(time_ms) FROM gpu_samples"), kT0);                // oldest gone
  EXPECT_EQ(integer(*db, "SELECT count(*) FROM gpu_samples_1h"), 1);
  EXPECT_EQ(db->integrity_check(), "ok");
}

}  // namespace history_retention_test
}  // namespace gpuwatch::store
