// Xid events in the history (store/xid_log.hpp, schema 9).
#include "store/xid_log.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/migrations.hpp"
#include "store_fixture.hpp"

namespace gpuwatch::store {
namespace {

TEST(XidLog, WritesAndReadsARangeOldestFirst) {
  testing::TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db) << db.error().message;
  ASSERT_TRUE(write_xid_events(**db, {{3000, 6, "GPU-6", 31}, {1000, 1, std::nullopt, 79}, {2000, 6, "GPU-6", 13}}));
  ASSERT_TRUE(write_xid_events(**db, {}));  // nothing to write: no error
  auto all = read_xid_events(**db, std::nullopt, std::nullopt);
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 3U);
  EXPECT_EQ((*all)[0].time_ms, 1000);
  EXPECT_EQ((*all)[0].xid, 79U);
  EXPECT_FALSE((*all)[0].uuid);
  EXPECT_EQ((*all)[2].uuid, "GPU-6");
  auto some = read_xid_events(**db, 1500, 2500);
  ASSERT_TRUE(some);
  ASSERT_EQ(some->size(), 1U);
  EXPECT_EQ((*some)[0].xid, 13U);
  EXPECT_EQ((*some)[0].gpu, 6U);
}

TEST(XidLog, AFileWithoutTheTableHasNoXids) {
  testing::TempDir dir;
  const std::string path = dir.file("old.db");
  {
    auto db = HistoryDatabase::open(path);
    ASSERT_TRUE(db);
    (*db)->sql().exec("DROP TABLE xid_events");  // as a file written before schema 9
  }
  auto db = HistoryDatabase::open(path, OpenOptions{.read_only = true});
  ASSERT_TRUE(db) << db.error().message;
  auto events = read_xid_events(**db, std::nullopt, std::nullopt);
  ASSERT_TRUE(events) << events.error().message;
  EXPECT_TRUE(events->empty());
}

TEST(XidLog, IsMigrationNine) {
  bool found = false;
  for (const auto& m : migrations()) {
    if (m.version == 9) found = m.sql == schema_v9_sql();
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace gpuwatch::store
