#include "store/migrations.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <set>

#include "store/history_columns.hpp"
#include "store/history_database.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace {

using testing::TempDir;

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
    raw.exec("ALTER TABLE gpu_samples DROP COLUMN " + history_columns().back().name);
    raw.exec("PRAGMA user_version = 1");
  }
  auto db = HistoryDatabase::open(dir.file("old.db"));
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_TRUE(columns_of(**db, "gpu_samples").count(history_columns().back().name));
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

}  // namespace
}  // namespace gpuwatch::store
