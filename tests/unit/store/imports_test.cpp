// Imported logs and lost GPUs in the history (store/imports.hpp, schema 12).
#include "store/imports.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/migrations.hpp"
#include "store_fixture.hpp"

namespace gpuwatch::store {
namespace imports_test {

TEST(Imports, RecordsAreKeptPerFileAndReadByRange) {
  testing::TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db) << db.error().message;
  EXPECT_GE(latest_schema_version(), 12);
  ASSERT_TRUE(write_import_record(**db, {"a.csv", "nvidia-smi --query-gpu CSV", 1000, 2000, 1, 2, 5}));
  ASSERT_TRUE(write_import_record(**db, {"a.csv", "nvidia-smi --query-gpu CSV", 1000, 2000, 1, 2, 6}));  // again
  ASSERT_TRUE(write_import_record(**db, {"b.log", "nvidia-smi dmon", 5000, 9000, 4, 8, 7}));
  auto all = read_import_records(**db);
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].imported_ms, 6);
  auto late = read_import_records(**db, 3000, std::nullopt);
  ASSERT_TRUE(late);
  ASSERT_EQ(late->size(), 1u);
  EXPECT_EQ((*late)[0].file, "b.log");
}

TEST(Imports, LostGpusNeedTheirGpuRowAndAreIdempotent) {
  testing::TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db) << db.error().message;
  (*db)->sql().exec("INSERT INTO gpus (gpu_key, gpu_index, first_seen_ms, last_seen_ms) VALUES ('import:x:2', 2, 0, 0)");
  ASSERT_TRUE(write_lost_gpu(**db, "import:x:2", 4000));
  ASSERT_TRUE(write_lost_gpu(**db, "import:x:2", 4000));
  ASSERT_TRUE(write_lost_gpu(**db, "no-such-gpu", 4000));  // no GPU row: nothing written
  auto lost = read_lost_gpus(**db, std::nullopt, std::nullopt);
  ASSERT_TRUE(lost) << lost.error().message;
  ASSERT_EQ(lost->size(), 1u);
  EXPECT_EQ((*lost)[0].gpu, 2u);
  EXPECT_EQ((*lost)[0].gpu_key, "import:x:2");
  EXPECT_TRUE(read_lost_gpus(**db, 5000, std::nullopt)->empty());
}

TEST(Imports, AFileBeforeSchema12HasNone) {
  testing::TempDir dir;
  const std::string path = dir.file("old.db");
  {
    auto db = HistoryDatabase::open(path);
    ASSERT_TRUE(db);
    (*db)->sql().exec("DROP TABLE imports");
    (*db)->sql().exec("DROP TABLE gpu_lost_events");
    (*db)->sql().exec("PRAGMA user_version = 11");  // (readers only: later migrations are not undone here)
  }
  auto reader = HistoryDatabase::open(path, OpenOptions{.read_only = true});
  ASSERT_TRUE(reader) << reader.error().message;
  EXPECT_TRUE(read_import_records(**reader)->empty());
  EXPECT_TRUE(read_lost_gpus(**reader, std::nullopt, std::nullopt)->empty());
}

}  // namespace imports_test
}  // namespace gpuwatch::store
