#include "store/host_history.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "host_signals/host_fields.hpp"
#include "store/history_database.hpp"
#include "store/history_reader.hpp"
#include "store/history_reader_stream.hpp"
#include "store/history_retention.hpp"
#include "store/history_writer.hpp"
#include "store/migrations.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace host_history_test {  // this test file's helpers (unity builds: no clash with another file's)

using host_signals::HostSample;
using testing::TempDir;

constexpr std::int64_t kT0 = 1'699'999'200'000;  // a whole hour (ms)

// Every host_fields() value set, each to its own number (bytes whole), a tree with and one
// without its CPU.
std::shared_ptr<HostSample> full_host(std::int64_t time_ms, double base) {
  auto sample = std::make_shared<HostSample>();
  sample->timestamp = testing::at_ms(time_ms);
  sample->interval_s = 1.0;
  sample->cpu_busy_percent = base + 1.5;
  sample->cpu_iowait_percent = base + 2.5;
  sample->cpu_steal_percent = base + 0.25;
  sample->cpu_pressure_some_percent = base + 3.5;
  sample->memory_available_percent = base + 40.5;
  sample->memory_total_bytes = 270'000'000'000ULL;
  sample->memory_available_bytes = 100'000'000'000ULL + static_cast<std::uint64_t>(base);
  sample->memory_pressure_some_percent = base + 4.5;
  sample->memory_pressure_full_percent = base + 5.5;
  sample->swap_total_bytes = 8'000'000'000ULL;
  sample->swap_used_bytes = 1'000'000ULL + static_cast<std::uint64_t>(base);
  sample->swap_in_pages_per_s = base + 6.5;
  sample->swap_out_pages_per_s = base + 7.5;
  sample->disk_read_bytes_per_s = base * 1e6 + 8.5;
  sample->disk_write_bytes_per_s = base * 1e5 + 9.5;
  sample->disk_busy_percent = base + 10.5;
  sample->io_pressure_some_percent = base + 11.5;
  sample->io_pressure_full_percent = base + 12.5;
  sample->net_rx_bytes_per_s = base * 1e7 + 13.5;
  sample->net_tx_bytes_per_s = base * 1e7 + 14.5;
  sample->ib_rx_bytes_per_s = base * 1e8 + 15.5;
  sample->ib_tx_bytes_per_s = base * 1e8 + 16.5;
  sample->process_trees = {{4242, 3.75, 9}, {4343, std::nullopt, 1}};
  return sample;
}

void expect_same_host(const HostSample& expected, const HostSample& actual) {
  for (const auto& field : host_signals::host_fields()) {
    EXPECT_EQ(field.get(expected), field.get(actual)) << field.key;
  }
  ASSERT_EQ(actual.process_trees.size(), expected.process_trees.size());
  for (std::size_t i = 0; i < expected.process_trees.size(); ++i) {
    EXPECT_EQ(actual.process_trees[i].pid, expected.process_trees[i].pid);
    EXPECT_EQ(actual.process_trees[i].cpu_cores, expected.process_trees[i].cpu_cores);
    EXPECT_EQ(actual.process_trees[i].processes, expected.process_trees[i].processes);
  }
}

std::set<std::string> columns_in(SQLite::Database& db, const std::string& table) {
  std::set<std::string> names;
  SQLite::Statement info(db, "PRAGMA table_info(" + table + ")");
  while (info.executeStep()) names.insert(info.getColumn(1).getString());
  return names;
}

TEST(HostHistory, TheColumnsAreTheHostFieldsKeys) {
  const auto columns = host_sample_columns();
  ASSERT_EQ(columns.size(), host_signals::host_fields().size());
  for (std::size_t i = 0; i < columns.size(); ++i) EXPECT_EQ(columns[i], host_signals::host_fields()[i].key);
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  const auto raw = columns_in((*db)->sql(), "host_samples");
  const auto minute = columns_in((*db)->sql(), "host_samples_1m");
  for (const auto& name : columns) {
    EXPECT_TRUE(raw.count(name)) << name;
    EXPECT_TRUE(minute.count(name + "_avg")) << name;
  }
  EXPECT_TRUE(columns_in((*db)->sql(), "host_process_trees").count("cpu_cores"));
}

TEST(HostHistory, SnapshotsWithTheHostReadBackEqual) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  std::vector<std::shared_ptr<HostSample>> hosts;
  {
    HistoryWriter writer(**db);
    for (int i = 0; i < 3; ++i) {
      auto snapshot = testing::make_snapshot(kT0 + i * 1000, 2);
      if (i != 1) {  // the middle sample has no host: it reads back null, not zeros
        hosts.push_back(full_host(kT0 + i * 1000, 10.0 * (i + 1)));
        snapshot.host = hosts.back();
      }
      writer.add(snapshot);
    }
    auto written = writer.flush();
    ASSERT_TRUE(written) << written.error().message;
    EXPECT_EQ(*written, 6U);  // GPU rows; the host rows go with them uncounted
  }
  HistoryQuery query;
  query.host = true;
  auto rows = read_history(**db, query);
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 3U);
  ASSERT_TRUE((*rows)[0].host);
  EXPECT_FALSE((*rows)[1].host);
  ASSERT_TRUE((*rows)[2].host);
  expect_same_host(*hosts[0], *(*rows)[0].host);
  expect_same_host(*hosts[1], *(*rows)[2].host);
  EXPECT_EQ((*rows)[2].host->timestamp, testing::at_ms(kT0 + 2000));
  // Without asking, no host (the readers that do not need it pay nothing).
  auto plain = read_history(**db, HistoryQuery{});
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_FALSE(plain->front().host);
  // A range read: only its rows.
  auto some = read_host_samples(**db, kT0 + 1, std::nullopt);
  ASSERT_TRUE(some) << some.error().message;
  ASSERT_EQ(some->size(), 1U);
  expect_same_host(*hosts[1], *some->front());
}

TEST(HostHistory, AnAbsentValueStaysAbsent) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  auto snapshot = testing::make_snapshot(kT0, 1);
  auto host = std::make_shared<HostSample>();  // a first reading: no rates, only PSI
  host->cpu_pressure_some_percent = 0.0;        // a real zero
  snapshot.host = host;
  HistoryWriter writer(**db);
  writer.add(snapshot);
  ASSERT_TRUE(writer.flush());
  auto back = read_host_samples(**db, std::nullopt, std::nullopt);
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_EQ(back->size(), 1U);
  EXPECT_EQ(back->front()->cpu_pressure_some_percent, 0.0);
  EXPECT_FALSE(back->front()->cpu_busy_percent);
  EXPECT_FALSE(back->front()->memory_total_bytes);
  EXPECT_TRUE(back->front()->process_trees.empty());
}

TEST(HostHistory, RetentionRollsTheHostUpWithTheGpus) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  {
    HistoryWriter writer(**db);
    for (int i = 0; i < 4; ++i) {  // 4 samples in the first minute: busy 11.5, 21.5, 31.5, 41.5
      auto snapshot = testing::make_snapshot(kT0 + i * 10'000, 1);
      snapshot.host = full_host(kT0 + i * 10'000, 10.0 * (i + 1));
      writer.add(snapshot);
    }
    auto late = testing::make_snapshot(kT0 + 3 * 60'000, 1);  // kept raw
    late.host = full_host(kT0 + 3 * 60'000, 1.0);
    writer.add(late);
    ASSERT_TRUE(writer.flush());
  }
  RetentionPolicy policy;
  policy.raw = std::chrono::minutes(2);
  auto result = apply_retention(**db, policy, kT0 + 3 * 60'000 + 1);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->host_raw_rolled_up, 4);
  EXPECT_EQ(result->host_minute_rows_written, 1);
  auto& sql = (*db)->sql();
  EXPECT_EQ(sql.execAndGet("SELECT count(*) FROM host_samples").getInt(), 1);
  EXPECT_EQ(sql.execAndGet("SELECT count(*) FROM host_process_trees").getInt(), 2);  // the kept sample's
  SQLite::Statement minute(sql, "SELECT samples, cpu_busy_percent_min, cpu_busy_percent_avg, cpu_busy_percent_max "
                                "FROM host_samples_1m WHERE time_ms = " + std::to_string(kT0));
  ASSERT_TRUE(minute.executeStep());
  EXPECT_EQ(minute.getColumn(0).getInt(), 4);
  EXPECT_DOUBLE_EQ(minute.getColumn(1).getDouble(), 11.5);
  EXPECT_DOUBLE_EQ(minute.getColumn(2).getDouble(), 26.5);
  EXPECT_DOUBLE_EQ(minute.getColumn(3).getDouble(), 41.5);
  minute.reset();
  // The hour tier follows: minutes older than the minute tier's cutoff roll into hours.
  RetentionPolicy hours = policy;
  hours.minute = std::chrono::minutes(1);
  ASSERT_TRUE(apply_retention(**db, hours, kT0 + 2 * 3'600'000));
  EXPECT_EQ(sql.execAndGet("SELECT count(*) FROM host_samples_1m").getInt(), 0);
  EXPECT_EQ(sql.execAndGet("SELECT samples FROM host_samples_1h WHERE time_ms = " + std::to_string(kT0)).getInt(), 5);
}

// A schema-15 file (before the host): migrations 1 to 15, one GPU, one raw row.
void make_schema_15_file(const std::string& path) {
  SQLite::Database raw(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  for (const auto& m : migrations()) {
    if (m.version <= 15) raw.exec(m.sql);
  }
  raw.exec("PRAGMA user_version = 15");
  raw.exec("INSERT INTO gpus (id, gpu_key, uuid, gpu_index, first_seen_ms, last_seen_ms) "
           "VALUES (1, 'GPU-00000000', 'GPU-00000000', 0, 0, 0)");
  raw.exec("INSERT INTO gpu_samples (time_ms, gpu_id, utilization_gpu_percent) VALUES (" + std::to_string(kT0) + ", 1, 40)");
}

TEST(HostHistory, ASchemaFifteenFileReadsWithoutAHostThenMigrates) {
  TempDir dir;
  const std::string path = dir.file("v15.db");
  make_schema_15_file(path);
  {  // a reader does not migrate: no host, and no error
    auto reader = HistoryDatabase::open(path, OpenOptions{.read_only = true});
    ASSERT_TRUE(reader) << reader.error().message;
    HistoryQuery query;
    query.host = true;
    auto rows = read_history(**reader, query);
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->size(), 1U);
    EXPECT_FALSE(rows->front().host);
  }
  auto db = HistoryDatabase::open(path, OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_EQ((*db)->schema_version(), latest_schema_version());
  EXPECT_GE(latest_schema_version(), 16);
  EXPECT_EQ((*db)->sql().execAndGet("SELECT count(*) FROM host_samples").getInt(), 0);
  // The old row is still there, and a new sample with its host lands beside it.
  auto snapshot = testing::make_snapshot(kT0 + 1000, 1);
  snapshot.host = full_host(kT0 + 1000, 5.0);
  {
    HistoryWriter writer(**db);
    writer.add(snapshot);
    ASSERT_TRUE(writer.flush());
  }
  HistoryQuery query;
  query.host = true;
  auto rows = read_history(**db, query);
  ASSERT_TRUE(rows) << rows.error().message;
  ASSERT_EQ(rows->size(), 2U);
  EXPECT_FALSE((*rows)[0].host);
  ASSERT_TRUE((*rows)[1].host);
  expect_same_host(*snapshot.host, *(*rows)[1].host);
  EXPECT_EQ((*db)->integrity_check(), "ok");
}

TEST(HostHistory, AHostColumnMissingFromTheFileIsAddedOrReadAsNull) {
  TempDir dir;
  const std::string path = dir.file("h.db");
  { ASSERT_TRUE(HistoryDatabase::open(path, OpenOptions{.durable = false})); }
  {  // a file from a build with one host field fewer
    SQLite::Database raw(path, SQLite::OPEN_READWRITE);
    raw.exec("ALTER TABLE host_samples DROP COLUMN ib_tx_bytes_per_s");
    raw.exec("INSERT INTO host_samples (time_ms, cpu_busy_percent) VALUES (" + std::to_string(kT0) + ", 50)");
  }
  {
    auto reader = HistoryDatabase::open(path, OpenOptions{.read_only = true});
    ASSERT_TRUE(reader) << reader.error().message;
    auto back = read_host_samples(**reader, std::nullopt, std::nullopt);
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_EQ(back->size(), 1U);
    EXPECT_EQ(back->front()->cpu_busy_percent, 50.0);
    EXPECT_FALSE(back->front()->ib_tx_bytes_per_s);
  }
  auto writer_db = HistoryDatabase::open(path, OpenOptions{.durable = false});
  ASSERT_TRUE(writer_db) << writer_db.error().message;
  EXPECT_TRUE(columns_in((*writer_db)->sql(), "host_samples").count("ib_tx_bytes_per_s"));
}

TEST(HostHistory, TheStreamedReaderAttachesTheHostOfEachTime) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db) << db.error().message;
  {
    HistoryWriter writer(**db);
    for (int i = 0; i < 5; ++i) {
      auto snapshot = testing::make_snapshot(kT0 + i * 1000, 2);
      snapshot.host = full_host(kT0 + i * 1000, static_cast<double>(i));
      writer.add(snapshot);
    }
    ASSERT_TRUE(writer.flush());
  }
  HistoryQuery query;
  query.host = true;
  query.since_ms = kT0 + 1000;
  std::vector<double> busy;
  auto visited = for_each_snapshot(**db, query, [&](core::Snapshot& snapshot) {
    ASSERT_TRUE(snapshot.host);
    EXPECT_EQ(snapshot.host->timestamp, snapshot.timestamp);
    busy.push_back(snapshot.host->cpu_busy_percent.value_or(-1));
  });
  ASSERT_TRUE(visited) << visited.error().message;
  EXPECT_EQ(busy, (std::vector<double>{2.5, 3.5, 4.5, 5.5}));
}

}  // namespace host_history_test
}  // namespace gpuwatch::store
