#include "store/untrusted_file.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/history_database.hpp"
#include "store/history_reader.hpp"
#include "store/history_writer.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace untrusted_file_test {

using testing::TempDir;

constexpr std::int64_t kT0 = 1'700'000'000'000;

// A history of two samples of one GPU, written as `record` does.
std::string recorded(const TempDir& dir, const std::string& name) {
  const std::string path = dir.file(name);
  auto db = HistoryDatabase::open(path);
  EXPECT_TRUE(db);
  HistoryWriter writer(**db);
  writer.add(testing::make_snapshot(kT0, 1));
  writer.add(testing::make_snapshot(kT0 + 1000, 1));
  EXPECT_TRUE(writer.flush());
  return path;
}

void tamper(const std::string& path, const std::string& sql) {
  SQLite::Database db(path, SQLite::OPEN_READWRITE);
  db.exec(sql);
}

TEST(UntrustedFile, AViewInPlaceOfATableIsRefusedByName) {
  TempDir dir;
  const auto path = recorded(dir, "view.db");
  tamper(path, "ALTER TABLE gpu_samples RENAME TO real_samples; CREATE VIEW gpu_samples AS SELECT * FROM real_samples");
  auto db = HistoryDatabase::open(path, cli_reader_options());
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find(path), std::string::npos) << db.error().message;
  EXPECT_NE(db.error().message.find("`gpu_samples` is a view"), std::string::npos) << db.error().message;
}

TEST(UntrustedFile, ATriggerIsRefusedByName) {
  TempDir dir;
  const auto path = recorded(dir, "trigger.db");
  tamper(path, "CREATE TRIGGER wipe AFTER INSERT ON gpus BEGIN DELETE FROM gpu_samples; END");
  auto db = HistoryDatabase::open(path, OpenOptions{.read_only = true});
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("trigger `wipe` on `gpus`"), std::string::npos) << db.error().message;
}

TEST(UntrustedFile, MoreGpusThanTheCapAreRefusedAndTheCapItselfIsRead) {
  TempDir dir;
  const auto at_cap = recorded(dir, "cap.db");
  tamper(at_cap, "INSERT INTO gpus (gpu_key, first_seen_ms, last_seen_ms) WITH RECURSIVE c(x) AS (SELECT 2 UNION ALL "
                 "SELECT x + 1 FROM c WHERE x < 1024) SELECT 'k' || x, 0, 0 FROM c");
  EXPECT_TRUE(HistoryDatabase::open(at_cap, cli_reader_options()));
  tamper(at_cap, "INSERT INTO gpus (gpu_key, first_seen_ms, last_seen_ms) VALUES ('one-more', 0, 0)");
  auto db = HistoryDatabase::open(at_cap, cli_reader_options());
  ASSERT_FALSE(db);
  EXPECT_NE(db.error().message.find("more than 1024 GPUs"), std::string::npos) << db.error().message;
}

TEST(UntrustedFile, RowsOfTimesNoClockGaveAreLeftOutByReaders) {
  TempDir dir;
  const auto path = recorded(dir, "time.db");
  tamper(path, "INSERT INTO gpu_samples (time_ms, gpu_id) SELECT 9223372036854775807, id FROM gpus;"
               "INSERT INTO gpu_samples (time_ms, gpu_id) SELECT -5, id FROM gpus");
  auto db = HistoryDatabase::open(path, cli_reader_options());
  ASSERT_TRUE(db);
  auto rows = read_history(**db, HistoryQuery{});
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  auto counts = count_history(**db);
  ASSERT_TRUE(counts);
  EXPECT_EQ(counts->last_ms, kT0 + 1000);
  EXPECT_EQ(counts->first_ms, kT0);
}

TEST(UntrustedFile, AReaderConnectionIsDefensive) {
  TempDir dir;
  const auto path = recorded(dir, "defensive.db");
  auto db = HistoryDatabase::open(path, OpenOptions{.read_only = true});
  ASSERT_TRUE(db);
  EXPECT_EQ((*db)->sql().execAndGet("PRAGMA trusted_schema").getInt(), 0);
  EXPECT_EQ((*db)->sql().execAndGet("PRAGMA cell_size_check").getInt(), 1);
  EXPECT_THROW((*db)->sql().exec("ATTACH DATABASE ':memory:' AS other"), SQLite::Exception);
}

TEST(UntrustedFile, SaneTimeSqlBoundsTheYears1970To2199) {
  EXPECT_EQ(sane_time_sql("t"), " AND t >= 0 AND t < 7258118400000");
}

}  // namespace untrusted_file_test
}  // namespace gpuwatch::store
