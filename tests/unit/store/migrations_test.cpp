#include "store/migrations.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <set>

#include "store/history_columns.hpp"
#include "store/history_database.hpp"
#include "store/history_reader.hpp"
#include "store/history_retention.hpp"
#include "store/history_writer.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace migrations_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using testing::TempDir;

// The fields schema 5 added (GPU limits and PCIe link), as the sampler gives them.
constexpr FieldId kSchema5Fields[] = {FieldId::ClocksMaxSm,          FieldId::TemperatureGpuSlowdown,
                                      FieldId::PowerDefaultLimit,    FieldId::PcieLinkGenCurrent,
                                      FieldId::PcieLinkGenMax,       FieldId::PcieLinkWidthCurrent,
                                      FieldId::PcieLinkWidthMax};
constexpr std::int64_t kT0 = 1'699'999'200'000;  // a whole hour (ms)

core::Snapshot with_limits(core::Snapshot snapshot) {
  for (auto& device : snapshot.devices) {
    device.get(FieldId::ClocksMaxSm) = core::FieldReading::of(std::uint64_t{1'980'000'000});
    device.get(FieldId::TemperatureGpuSlowdown) = core::FieldReading::of(std::int64_t{89});
    device.get(FieldId::PowerDefaultLimit) = core::FieldReading::of(700.0);
    device.get(FieldId::PcieLinkGenCurrent) = core::FieldReading::of(std::uint64_t{4});
    device.get(FieldId::PcieLinkGenMax) = core::FieldReading::of(std::uint64_t{5});
    device.get(FieldId::PcieLinkWidthCurrent) = core::FieldReading::of(std::uint64_t{8});
    device.get(FieldId::PcieLinkWidthMax) = core::FieldReading::of(std::uint64_t{16});
  }
  return snapshot;
}

// A schema-4 file as gpuwatch before schema 5 made it: migrations 1 to 4, one GPU, one raw
// row at kT0 and one 1-minute rollup row at kT0 - 1 h (what `record` left there).
void make_schema_4_file(const std::string& path) {
  SQLite::Database raw(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  for (const auto& m : migrations()) {
    if (m.version <= 4) raw.exec(m.sql);
  }
  raw.exec("PRAGMA user_version = 4");
  raw.exec("INSERT INTO gpus (id, gpu_key, uuid, gpu_index, first_seen_ms, last_seen_ms) "
           "VALUES (1, 'GPU-00000000', 'GPU-00000000', 0, 0, 0)");
  raw.exec("INSERT INTO gpu_samples (time_ms, gpu_id, utilization_gpu_percent, clocks_current_sm_mhz) VALUES (" +
           std::to_string(kT0) + ", 1, 40, 1410)");
  raw.exec("INSERT INTO gpu_samples_1m (time_ms, gpu_id, samples, utilization_gpu_percent_avg) VALUES (" +
           std::to_string(kT0 - 3'600'000) + ", 1, 6, 10)");
}

std::set<std::string> columns_of(const HistoryDatabase& db, const std::string& table) {
  std::set<std::string> names;
  SQLite::Statement info(db.sql(), "PRAGMA table_info(" + table + ")");
  while (info.executeStep()) names.insert(info.getColumn(1).getString());
  return names;
}

TEST(Migrations, AreNumberedFromOneWithoutGaps) {
  int expected = 1;
  for (const auto& m : migrations()) EXPECT_EQ(m.version, expected++);
  EXPECT_EQ(latest_schema_version(), expected - 1);
}

TEST(Migrations, EmptyFileGetsTheLatestSchemaInWalMode) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("history.db"));
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ((*db)->schema_version(), latest_schema_version());
  EXPECT_EQ((*db)->journal_mode(), "wal");
  auto samples = columns_of(**db, "gpu_samples");
  EXPECT_TRUE(samples.count("time_ms"));
  EXPECT_TRUE(samples.count("gpu_id"));
  for (const auto& c : history_columns()) EXPECT_TRUE(samples.count(c.name)) << c.name;
  auto processes = columns_of(**db, "process_samples");
  for (const char* name : {"time_ms", "gpu_id", "pid", "name", "user", "used_memory_bytes"}) {
    EXPECT_TRUE(processes.count(name)) << name;
  }
  EXPECT_TRUE(columns_of(**db, "gpus").count("uuid"));
  EXPECT_EQ((*db)->integrity_check(), "ok");
}

TEST(Migrations, ReopeningIsIdempotent) {
  TempDir dir;
  { ASSERT_TRUE(HistoryDatabase::open(dir.file("h.db"))); }
  auto again = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ((*again)->schema_version(), latest_schema_version());
}

TEST(Migrations, AddsColumnsMissingFromAnOlderV1File) {
  TempDir dir;
  {
    SQLite::Database raw(dir.file("old.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec(schema_v1_sql());
    raw.exec("ALTER TABLE gpu_samples DROP COLUMN " + history_columns_of_schema(1).back().name);
    raw.exec("PRAGMA user_version = 1");
  }
  auto db = HistoryDatabase::open(dir.file("old.db"));
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_TRUE(columns_of(**db, "gpu_samples").count(history_columns_of_schema(1).back().name));
}

TEST(Migrations, SchemaOneIsTheOriginalColumnsAndEveryLaterColumnHasItsMigration) {
  for (const auto& c : history_columns()) {
    EXPECT_GE(c.since_schema, 1) << c.name;
    EXPECT_LE(c.since_schema, latest_schema_version()) << c.name;
    if (c.since_schema > 2) {  // 1: created by migration 1 (and 2 for the rollups)
      EXPECT_NE(migrations()[c.since_schema - 1].sql.find("ADD COLUMN " + c.name + " "), std::string::npos) << c.name;
    }
  }
  for (auto id : kSchema5Fields) {
    const HistoryColumn* c = find_history_column(id);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->since_schema, 5) << c->name;
    EXPECT_EQ(schema_v1_sql().find(c->name), std::string::npos) << c->name;
    EXPECT_EQ(schema_v2_sql().find(c->name), std::string::npos) << c->name;
  }
  EXPECT_GE(latest_schema_version(), 5);
}

TEST(Migrations, SchemaFiveColumnsAndTheirStorage) {
  EXPECT_EQ(find_history_column(FieldId::ClocksMaxSm)->name, "clocks_max_sm_mhz");
  EXPECT_EQ(find_history_column(FieldId::ClocksMaxSm)->sql_type, "REAL");
  EXPECT_EQ(find_history_column(FieldId::TemperatureGpuSlowdown)->name, "temperature_gpu_slowdown_c");
  EXPECT_EQ(find_history_column(FieldId::TemperatureGpuSlowdown)->sql_type, "INTEGER");
  EXPECT_EQ(find_history_column(FieldId::PowerDefaultLimit)->name, "power_default_limit_mw");
  EXPECT_EQ(find_history_column(FieldId::PowerDefaultLimit)->sql_type, "REAL");
  for (auto id : {FieldId::PcieLinkGenCurrent, FieldId::PcieLinkGenMax, FieldId::PcieLinkWidthCurrent,
                  FieldId::PcieLinkWidthMax}) {
    EXPECT_EQ(find_history_column(id)->sql_type, "INTEGER");
  }
  EXPECT_EQ(find_history_column(FieldId::PcieLinkWidthMax)->name, "pcie_link_width_max");
}

TEST(Migrations, ASchemaFourFileGetsTheSchemaFiveColumnsWithNullInItsOldRows) {
  TempDir dir;
  const std::string path = dir.file("v4.db");
  make_schema_4_file(path);
  {  // the premise: the previous layout has none of them
    SQLite::Database raw(path, SQLite::OPEN_READONLY);
    SQLite::Statement info(raw, "PRAGMA table_info(gpu_samples)");
    while (info.executeStep()) EXPECT_NE(info.getColumn(1).getString(), "clocks_max_sm_mhz");
  }
  auto db = HistoryDatabase::open(path, OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ((*db)->schema_version(), latest_schema_version());
  const auto samples = columns_of(**db, "gpu_samples");
  const auto minutes = columns_of(**db, "gpu_samples_1m");
  const auto hours = columns_of(**db, "gpu_samples_1h");
  for (auto id : kSchema5Fields) {
    const std::string name = find_history_column(id)->name;
    EXPECT_TRUE(samples.count(name)) << name;
    for (const char* suffix : {"_min", "_avg", "_max"}) {
      EXPECT_TRUE(minutes.count(name + suffix)) << name << suffix;
      EXPECT_TRUE(hours.count(name + suffix)) << name << suffix;
    }
  }
  EXPECT_EQ((*db)->integrity_check(), "ok");

  {  // new rows round-trip
    HistoryWriter writer(**db);
    writer.add(with_limits(testing::make_snapshot(kT0 + 1000, 1)));
    auto written = writer.flush();
    ASSERT_TRUE(written) << written.error().message;
  }
  auto rows = read_history(**db, HistoryQuery{});
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 2U);
  const auto& old_row = (*rows)[0].devices.at(0);
  const auto& new_row = (*rows)[1].devices.at(0);
  EXPECT_DOUBLE_EQ(*old_row.get(FieldId::UtilizationGpu).as_double(), 0.40);  // the old values are kept
  for (auto id : kSchema5Fields) {
    EXPECT_FALSE(old_row.get(id).ok()) << find_history_column(id)->name;  // absent, never 0
    EXPECT_FALSE(old_row.get(id).value.has_value()) << find_history_column(id)->name;
    EXPECT_TRUE(new_row.get(id).ok()) << find_history_column(id)->name;
  }
  EXPECT_EQ(new_row.get(FieldId::ClocksMaxSm).as_uint(), 1'980'000'000U);
  EXPECT_EQ(new_row.get(FieldId::TemperatureGpuSlowdown).as_int(), 89);
  EXPECT_DOUBLE_EQ(*new_row.get(FieldId::PowerDefaultLimit).as_double(), 700.0);
  EXPECT_EQ(new_row.get(FieldId::PcieLinkGenCurrent).as_uint(), 4U);
  EXPECT_EQ(new_row.get(FieldId::PcieLinkGenMax).as_uint(), 5U);
  EXPECT_EQ(new_row.get(FieldId::PcieLinkWidthCurrent).as_uint(), 8U);
  EXPECT_EQ(new_row.get(FieldId::PcieLinkWidthMax).as_uint(), 16U);

  // Rolled up: the old minute stays NULL, a minute with the new rows gets their min/avg/max.
  RetentionPolicy policy;
  policy.raw = std::chrono::milliseconds(0);
  auto retained = apply_retention(**db, policy, kT0 + 120'000);
  ASSERT_TRUE(retained) << retained.error().message;
  HistoryQuery minutes_query;
  minutes_query.resolution = Resolution::Minute;
  minutes_query.statistic = Statistic::Max;
  auto rolled = read_history(**db, minutes_query);
  ASSERT_TRUE(rolled) << rolled.error().message;
  ASSERT_EQ(rolled->size(), 2U);
  EXPECT_FALSE((*rolled)[0].devices.at(0).get(FieldId::ClocksMaxSm).ok());
  EXPECT_EQ((*rolled)[1].devices.at(0).get(FieldId::ClocksMaxSm).as_uint(), 1'980'000'000U);
  EXPECT_EQ((*rolled)[1].devices.at(0).get(FieldId::PcieLinkWidthMax).as_uint(), 16U);

  // Opening again migrates nothing more.
  db->reset();
  auto again = HistoryDatabase::open(path, OpenOptions{.durable = false});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ((*again)->schema_version(), latest_schema_version());
}

TEST(Migrations, AReaderOfASchemaFourFileSeesTheNewColumnsAsNull) {
  // history, report and diagnose open read-only and cannot migrate: the file stays at 4.
  TempDir dir;
  const std::string path = dir.file("v4.db");
  make_schema_4_file(path);
  auto reader = HistoryDatabase::open(path, OpenOptions{.read_only = true});
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ((*reader)->schema_version(), 4);
  auto rows = read_history(**reader, HistoryQuery{});
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 1U);
  const auto& device = (*rows)[0].devices.at(0);
  EXPECT_EQ(device.get(FieldId::ClocksCurrentSm).as_uint(), 1'410'000'000U);
  for (auto id : kSchema5Fields) EXPECT_FALSE(device.get(id).ok()) << find_history_column(id)->name;
  HistoryQuery minutes;
  minutes.resolution = Resolution::Minute;
  auto rolled = read_history(**reader, minutes);
  ASSERT_TRUE(rolled) << rolled.error().message;
  ASSERT_FALSE(rolled->empty());
  EXPECT_FALSE((*rolled)[0].devices.at(0).get(FieldId::ClocksMaxSm).ok());
  reader->reset();
  SQLite::Database raw(path, SQLite::OPEN_READONLY);  // and the file was not changed
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), 4);
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM pragma_table_info('gpu_samples') WHERE name = 'clocks_max_sm_mhz'").getInt(), 0);
}

// A schema-14 file (before gpus.vendor): migrations 1 to 14, one GPU, one raw row at kT0.
void make_schema_14_file(const std::string& path) {
  SQLite::Database raw(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  for (const auto& m : migrations()) {
    if (m.version <= 14) raw.exec(m.sql);
  }
  raw.exec("PRAGMA user_version = 14");
  raw.exec("INSERT INTO gpus (id, gpu_key, uuid, gpu_index, name, first_seen_ms, last_seen_ms) "
           "VALUES (1, 'GPU-00000000', 'GPU-00000000', 0, 'NVIDIA H100 80GB HBM3', 0, 0)");
  raw.exec("INSERT INTO gpu_samples (time_ms, gpu_id, utilization_gpu_percent) VALUES (" + std::to_string(kT0) + ", 1, 40)");
}

TEST(Migrations, ASchemaFourteenFileGetsTheVendorColumnWithNvidiaInItsOldRows) {
  TempDir dir;
  const std::string path = dir.file("v14.db");
  make_schema_14_file(path);
  {  // the premise: no vendor column yet
    SQLite::Database raw(path, SQLite::OPEN_READONLY);
    EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM pragma_table_info('gpus') WHERE name = 'vendor'").getInt(), 0);
  }
  auto db = HistoryDatabase::open(path, OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ((*db)->schema_version(), latest_schema_version());
  EXPECT_GE(latest_schema_version(), 15);
  EXPECT_EQ((*db)->sql().execAndGet("SELECT vendor FROM gpus WHERE id = 1").getString(), "nvidia");
  auto gpus = read_gpus(**db);
  ASSERT_TRUE(gpus) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 1U);
  EXPECT_EQ(gpus->front().vendor, core::Vendor::Nvidia);
  EXPECT_EQ((*db)->integrity_check(), "ok");
  // A GPU inserted without naming its vendor (an older gpuwatch's writer) is NVIDIA's too.
  (*db)->sql().exec("INSERT INTO gpus (gpu_key, first_seen_ms, last_seen_ms) VALUES ('index:1', 0, 0)");
  EXPECT_EQ((*db)->sql().execAndGet("SELECT vendor FROM gpus WHERE gpu_key = 'index:1'").getString(), "nvidia");
  db->reset();
  // Opened again (and with user_version set back, as some tests do): the column is not added twice.
  {
    SQLite::Database raw(path, SQLite::OPEN_READWRITE);
    raw.exec("PRAGMA user_version = 14");
  }
  auto again = HistoryDatabase::open(path, OpenOptions{.durable = false});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ((*again)->schema_version(), latest_schema_version());
}

TEST(Migrations, AReaderOfASchemaFourteenFileReadsItsGpusAsNvidia) {
  TempDir dir;
  const std::string path = dir.file("v14.db");
  make_schema_14_file(path);
  auto reader = HistoryDatabase::open(path, OpenOptions{.read_only = true});
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_EQ((*reader)->schema_version(), 14);
  auto gpus = read_gpus(**reader);
  ASSERT_TRUE(gpus) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 1U);
  EXPECT_EQ(gpus->front().vendor, core::Vendor::Nvidia);
  auto rows = read_history(**reader, HistoryQuery{});
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 1U);
  EXPECT_EQ((*rows)[0].devices.at(0).vendor, core::Vendor::Nvidia);
  EXPECT_FALSE((*rows)[0].names_vendors());
  reader->reset();
  SQLite::Database raw(path, SQLite::OPEN_READONLY);  // and the file was not changed
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM pragma_table_info('gpus') WHERE name = 'vendor'").getInt(), 0);
}

TEST(Migrations, RefusesAFileFromANewerGpuwatch) {
  TempDir dir;
  {
    SQLite::Database raw(dir.file("new.db"), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("PRAGMA user_version = 999");
  }
  auto db = HistoryDatabase::open(dir.file("new.db"));
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("newer"), std::string::npos) << db.error().message;
  auto reader = HistoryDatabase::open(dir.file("new.db"), OpenOptions{.read_only = true});
  ASSERT_FALSE(reader);
  EXPECT_NE(reader.error().message.find("newer"), std::string::npos);
}

TEST(Migrations, ReaderNeedsAnExistingHistory) {
  TempDir dir;
  auto missing = HistoryDatabase::open(dir.file("none.db"), OpenOptions{.read_only = true});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("gpuwatch record"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir.file("none.db")));  // a reader never creates it
}

TEST(Migrations, ReadOnlyFolderIsAClearError) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  TempDir dir;
  std::filesystem::create_directory(dir.file("ro"));
  chmod(dir.file("ro").c_str(), 0555);
  auto db = HistoryDatabase::open(dir.file("ro") + "/h.db");
  chmod(dir.file("ro").c_str(), 0755);
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("cannot open history database"), std::string::npos) << db.error().message;
}

}  // namespace migrations_test
}  // namespace gpuwatch::store
