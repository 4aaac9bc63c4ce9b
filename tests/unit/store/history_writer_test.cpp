#include "store/history_writer.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/history_reader.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace history_writer_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using testing::make_snapshot;
using testing::TempDir;

std::unique_ptr<HistoryDatabase> open_db(const TempDir& dir) {
  auto db = HistoryDatabase::open(dir.file("history.db"), OpenOptions{.durable = false});
  EXPECT_TRUE(db) << db.error().message;
  return std::move(*db);
}

std::int64_t count(const HistoryDatabase& db, const std::string& sql) { return db.sql().execAndGet(sql).getInt64(); }

TEST(HistoryWriter, RoundTripKeepsValuesAndNulls) {
  TempDir dir;
  auto db = open_db(dir);
  HistoryWriter writer(*db);
  core::Snapshot snapshot = make_snapshot(1'700'000'000'123, 2);
  snapshot.devices[1].get(FieldId::TemperatureGpu) = core::FieldReading::absent(core::FieldStatus::Failed, core::ReadError{core::ErrorReason::Other, 999});
  writer.add(snapshot);
  auto written = writer.flush();
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(*written, 2U);

  // In SQL: absent is NULL, a real 0 is 0, scaled columns hold NVML's units.
  EXPECT_EQ(count(*db, "SELECT count(*) FROM gpu_samples WHERE power_draw_mw IS NULL"), 2);
  EXPECT_EQ(count(*db, "SELECT count(*) FROM gpu_samples WHERE fan_speed_percent = 0"), 2);
  EXPECT_EQ(count(*db, "SELECT count(*) FROM gpu_samples WHERE temperature_gpu_c IS NULL"), 1);
  EXPECT_EQ(count(*db, "SELECT utilization_gpu_percent FROM gpu_samples WHERE gpu_id = 1"), 25);
  EXPECT_EQ(count(*db, "SELECT clocks_current_sm_mhz FROM gpu_samples LIMIT 1"), 1410);
  EXPECT_EQ(count(*db, "SELECT count(*) FROM gpus"), 2);

  auto history = read_history(*db, {});
  ASSERT_TRUE(history) << history.error().message;
  ASSERT_EQ(history->size(), 1U);
  const auto& back = history->front();
  EXPECT_EQ(back.timestamp, snapshot.timestamp);
  ASSERT_EQ(back.devices.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& want = snapshot.devices[i];
    const auto& got = back.devices[i];
    EXPECT_EQ(got.index, want.index);
    EXPECT_EQ(got.get(FieldId::Uuid).as_string(), want.get(FieldId::Uuid).as_string());
    EXPECT_EQ(got.get(FieldId::Name).as_string(), want.get(FieldId::Name).as_string());
    EXPECT_NEAR(*got.get(FieldId::UtilizationGpu).as_double(), *want.get(FieldId::UtilizationGpu).as_double(), 1e-12);
    EXPECT_EQ(got.get(FieldId::MemoryUsed).as_uint(), want.get(FieldId::MemoryUsed).as_uint());
    EXPECT_EQ(got.get(FieldId::ClocksCurrentSm).as_uint(), 1410000000U);
    EXPECT_FALSE(got.get(FieldId::PowerDraw).ok());
    EXPECT_FALSE(got.get(FieldId::PowerDraw).value.has_value());
    EXPECT_EQ(got.get(FieldId::FanSpeed).as_double(), 0.0);  // zero stays zero
  }
  EXPECT_EQ(back.devices[0].get(FieldId::TemperatureGpu).as_int(), 61);
  EXPECT_FALSE(back.devices[1].get(FieldId::TemperatureGpu).ok());
}

TEST(HistoryWriter, NothingIsWrittenBeforeAFlushAndOneFlushWritesTheBatch) {
  TempDir dir;
  auto db = open_db(dir);
  HistoryWriter writer(*db, WriterOptions{std::chrono::seconds(5), 1000});
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) writer.add(make_snapshot(1'700'000'000'000 + i * 1000, 4));
  EXPECT_EQ(writer.pending_rows(), 40U);
  EXPECT_FALSE(writer.flush_due(start));
  EXPECT_TRUE(writer.flush_due(start + std::chrono::seconds(6)));

  auto reader = HistoryDatabase::open(dir.file("history.db"), OpenOptions{.read_only = true});
  ASSERT_TRUE(reader);
  EXPECT_EQ(count(**reader, "SELECT count(*) FROM gpu_samples"), 0);
  auto written = writer.flush();
  ASSERT_TRUE(written);
  EXPECT_EQ(*written, 40U);
  EXPECT_EQ(writer.pending_rows(), 0U);
  EXPECT_EQ(count(**reader, "SELECT count(*) FROM gpu_samples"), 40);  // visible to a reader at once (WAL)
  EXPECT_FALSE(writer.flush_due(std::chrono::steady_clock::now() + std::chrono::hours(1)));  // empty: nothing due
  EXPECT_EQ(*writer.flush(), 0U);
}

TEST(HistoryWriter, FlushIsDueWhenTheBatchIsFull) {
  TempDir dir;
  auto db = open_db(dir);
  HistoryWriter writer(*db, WriterOptions{std::chrono::hours(1), 8});
  auto now = std::chrono::steady_clock::now();
  writer.add(make_snapshot(1'000, 4));
  EXPECT_FALSE(writer.flush_due(now));
  writer.add(make_snapshot(2'000, 4));
  EXPECT_TRUE(writer.flush_due(now));
}

TEST(HistoryWriter, AFailedFlushKeepsTheBatchForTheNextOne) {
  TempDir dir;
  auto opened = HistoryDatabase::open(dir.file("history.db"), OpenOptions{.durable = false, .busy_timeout_ms = 20});
  ASSERT_TRUE(opened);
  auto& db = **opened;
  HistoryWriter writer(db);
  writer.add(make_snapshot(1'000, 2));
  {
    // Another writer holds the write lock: the flush fails and says why.
    SQLite::Database other(dir.file("history.db"), SQLite::OPEN_READWRITE);
    other.exec("BEGIN IMMEDIATE");
    auto failed = writer.flush();
    ASSERT_FALSE(failed);
    EXPECT_NE(failed.error().message.find("locked"), std::string::npos) << failed.error().message;
    EXPECT_EQ(writer.pending_rows(), 2U);
    other.exec("ROLLBACK");
  }
  writer.add(make_snapshot(2'000, 2));
  auto written = writer.flush();
  ASSERT_TRUE(written) << written.error().message;
  EXPECT_EQ(*written, 4U);
  EXPECT_EQ(count(db, "SELECT count(*) FROM gpu_samples"), 4);
  EXPECT_EQ(count(db, "SELECT count(*) FROM gpus"), 2);
}

TEST(HistoryWriter, BufferIsBoundedAndDropsTheOldestRows) {
  TempDir dir;
  auto db = open_db(dir);
  WriterOptions options;
  options.max_buffered_rows = 20;
  HistoryWriter writer(*db, options);
  for (int i = 0; i < 30; ++i) writer.add(make_snapshot(1'000 + i * 1000, 1));  // as if every flush failed
  EXPECT_LE(writer.pending_rows(), 20U);
  EXPECT_EQ(writer.pending_rows() + writer.dropped_rows(), 30U);
  ASSERT_TRUE(writer.flush());
  // The newest samples are the ones kept.
  EXPECT_EQ(count(*db, "SELECT max(time_ms) FROM gpu_samples"), 30'000);
  EXPECT_EQ(count(*db, "SELECT min(time_ms) FROM gpu_samples"), 1'000 + static_cast<std::int64_t>(writer.dropped_rows()) * 1000);
}

TEST(HistoryWriter, SameGpuAcrossFlushesIsOneGpuRow) {
  TempDir dir;
  auto db = open_db(dir);
  HistoryWriter writer(*db);
  writer.add(make_snapshot(1'000, 1));
  writer.add(make_snapshot(2'000, 1));
  ASSERT_TRUE(writer.flush());
  EXPECT_EQ(read_gpus(*db)->front().last_seen_ms, 2'000);
  writer.add(make_snapshot(5'000, 1));
  ASSERT_TRUE(writer.flush());
  auto gpus = read_gpus(*db);
  ASSERT_TRUE(gpus);
  ASSERT_EQ(gpus->size(), 1U);
  EXPECT_EQ(gpus->front().first_seen_ms, 1'000);
  EXPECT_EQ(gpus->front().last_seen_ms, 5'000);
  EXPECT_EQ(gpus->front().uuid, "GPU-00000000");
  // A reopened writer finds the same GPU again.
  HistoryWriter second(*db);
  second.add(make_snapshot(9'000, 1));
  ASSERT_TRUE(second.flush());
  EXPECT_EQ(count(*db, "SELECT count(*) FROM gpus"), 1);
  EXPECT_EQ(count(*db, "SELECT count(DISTINCT gpu_id) FROM gpu_samples"), 1);
}

TEST(HistoryWriter, LostDevicesGetNoRowAndProcessesKeepTheirUser) {
  TempDir dir;
  auto db = open_db(dir);
  HistoryWriter writer(*db);
  core::Snapshot snapshot = make_snapshot(1'000, 2);
  snapshot.devices[1].state = core::DeviceState::Lost;
  core::ProcessSample train{4242, "python", std::uint64_t{64ULL << 30}};
  core::ProcessSample unknown{4243, "", std::nullopt};
  snapshot.devices[0].processes = {train, unknown};
  writer.add(snapshot, [](std::uint32_t pid) -> std::optional<std::string> {
    if (pid == 4242) return "alice";
    return std::nullopt;
  });
  ASSERT_TRUE(writer.flush());
  EXPECT_EQ(count(*db, "SELECT count(*) FROM gpu_samples"), 1);
  EXPECT_EQ(db->sql().execAndGet("SELECT user FROM process_samples WHERE pid = 4242").getString(), "alice");
  EXPECT_EQ(count(*db, "SELECT count(*) FROM process_samples WHERE pid = 4243 AND user IS NULL "
                       "AND used_memory_bytes IS NULL"),
            1);

  HistoryQuery query;
  query.processes = true;
  auto history = read_history(*db, query);
  ASSERT_TRUE(history);
  ASSERT_EQ(history->front().devices.front().processes.size(), 2U);
  EXPECT_EQ(history->front().devices.front().processes[0].used_memory_bytes, 64ULL << 30);
  EXPECT_FALSE(history->front().devices.front().processes[1].used_memory_bytes.has_value());
}

TEST(HistoryWriter, EachGpusVendorRoundTripsThroughTheGpusTable) {
  // issue 28: a mixed node's history knows each GPU's vendor, so its diagnosis uses that vendor's words.
  TempDir dir;
  auto db = open_db(dir);
  HistoryWriter writer(*db);
  core::Snapshot snapshot = make_snapshot(1'700'000'000'000, 3);
  snapshot.devices[1].vendor = core::Vendor::Amd;
  snapshot.devices[1].get(FieldId::Name) = core::FieldReading::of(std::string("AMD Instinct MI300X"));
  snapshot.devices[2].vendor = core::Vendor::Intel;
  writer.add(snapshot);
  ASSERT_TRUE(writer.flush());
  EXPECT_EQ(db->sql().execAndGet("SELECT group_concat(vendor, ',') FROM (SELECT vendor FROM gpus ORDER BY gpu_index)")
                .getString(),
            "nvidia,amd,intel");

  auto gpus = read_gpus(*db);
  ASSERT_TRUE(gpus) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 3U);
  EXPECT_EQ((*gpus)[0].vendor, core::Vendor::Nvidia);
  EXPECT_EQ((*gpus)[1].vendor, core::Vendor::Amd);
  EXPECT_EQ((*gpus)[2].vendor, core::Vendor::Intel);

  auto history = read_history(*db, HistoryQuery{});
  ASSERT_TRUE(history) << history.error().message;
  ASSERT_EQ(history->size(), 1U);
  const auto& devices = history->front().devices;
  ASSERT_EQ(devices.size(), 3U);
  EXPECT_EQ(devices[0].vendor, core::Vendor::Nvidia);
  EXPECT_EQ(devices[1].vendor, core::Vendor::Amd);
  EXPECT_EQ(devices[2].vendor, core::Vendor::Intel);
  EXPECT_TRUE(history->front().names_vendors());

  // A later batch from the same GPU keeps its vendor (the upsert writes it again, unchanged).
  snapshot.timestamp += std::chrono::seconds(1);
  writer.add(snapshot);
  ASSERT_TRUE(writer.flush());
  EXPECT_EQ(count(*db, "SELECT count(*) FROM gpus WHERE vendor = 'amd'"), 1);
}

}  // namespace history_writer_test
}  // namespace gpuwatch::store
