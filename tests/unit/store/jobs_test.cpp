#include "store/jobs.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include <set>

#include "store/migrations.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace {

using testing::TempDir;

JobRow started(const std::string& name, std::int64_t start_ms) {
  JobRow row;
  row.name = name;
  row.command = "[\"python\",\"train.py\"]";
  row.user = "alice";
  row.host = "node1";
  row.start_ms = start_ms;
  return row;
}

TEST(Jobs, AJobIsInsertedAtStartAndFinishedAtItsEnd) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db);
  auto id = insert_job(**db, started("train", 1000));
  ASSERT_TRUE(id);
  auto running = find_job(**db, *id);
  ASSERT_TRUE(running && *running);
  EXPECT_EQ((*running)->end_ms, std::nullopt);  // absent, not 0
  EXPECT_EQ((*running)->exit_status, std::nullopt);
  EXPECT_EQ((*running)->summary, "");
  ASSERT_TRUE(finish_job(**db, *id, 5000, 3, "[{\"index\":2}]", "{\"wall_s\":4}"));
  auto done = find_job(**db, *id);
  ASSERT_TRUE(done && *done);
  EXPECT_EQ((*done)->end_ms, 5000);
  EXPECT_EQ((*done)->exit_status, 3);
  EXPECT_EQ((*done)->gpus, "[{\"index\":2}]");
  EXPECT_EQ((*done)->summary, "{\"wall_s\":4}");
  EXPECT_EQ((*done)->user, "alice");
}

TEST(Jobs, ListIsNewestFirstAndAnUnknownIdIsNone) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db);
  ASSERT_TRUE(insert_job(**db, started("old", 1000)));
  ASSERT_TRUE(insert_job(**db, started("new", 9000)));
  auto jobs = list_jobs(**db);
  ASSERT_TRUE(jobs);
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].name, "new");
  auto none = find_job(**db, 99);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  EXPECT_FALSE(finish_job(**db, 99, 1, 0, "[]", "{}"));
}

TEST(Jobs, StepsKeepNullForAbsentAllocatorValues) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db);
  auto id = insert_job(**db, started("train", 1000));
  ASSERT_TRUE(id);
  JobStepRow a{1, 1.5, 0.2, 0.8, 2.0, 1024, 2048, 0, 0};
  JobStepRow b{2, 2.5, 0.3, 0.7, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
  ASSERT_TRUE(insert_job_steps(**db, *id, {b, a}));
  auto steps = job_steps(**db, *id);
  ASSERT_TRUE(steps);
  ASSERT_EQ(steps->size(), 2u);
  EXPECT_EQ((*steps)[0].step, 1);
  EXPECT_EQ((*steps)[0].reserved_bytes, 2048);
  EXPECT_EQ((*steps)[1].loss, std::nullopt);
  EXPECT_EQ((*steps)[1].allocated_bytes, std::nullopt);
}

TEST(Jobs, Migration8CreatesBothTables) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db);
  EXPECT_GE((*db)->schema_version(), 8);
  std::set<std::string> columns;
  SQLite::Statement info((*db)->sql(), "PRAGMA table_info(job_steps)");
  while (info.executeStep()) columns.insert(info.getColumn(1).getString());
  for (const char* c : {"job_id", "step", "time_s", "data_wait_s", "compute_s", "loss", "allocated_bytes",
                        "reserved_bytes", "num_alloc_retries", "num_ooms"})
    EXPECT_EQ(columns.count(c), 1u) << c;
}

}  // namespace
}  // namespace gpuwatch::store
