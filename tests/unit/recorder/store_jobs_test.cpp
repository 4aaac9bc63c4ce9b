#include "recorder/store_jobs.hpp"

#include <gtest/gtest.h>

#include "host/host_name.hpp"
#include "store/history_database.hpp"
#include "store/jobs.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::recorder {
namespace store_jobs_test {  // this test file's helpers (unity builds: no clash with another file's)

using namespace std::chrono_literals;

store::JobRow started(const std::string& name, std::int64_t start_ms) {
  store::JobRow row;
  row.name = name;
  row.command = "[\"python\",\"train.py\"]";
  row.user = "alice";
  row.host = host::host_name();
  row.start_ms = start_ms;
  return row;
}

TEST(StoreJobsReader, TheNewestJobsFirstAtMostTheLimitWithLostMonitorsMarked) {
  store::testing::TempDir dir;
  {
    auto db = store::HistoryDatabase::open(dir.file("h.db"), store::OpenOptions{.durable = false});
    ASSERT_TRUE(db) << db.error().message;
    auto first = store::insert_job(**db, started("first", 1000));
    ASSERT_TRUE(first);
    ASSERT_TRUE(store::finish_job(**db, *first, 5000, 0, "[{\"index\":0}]", "{\"energy_wh\":1.5}"));
    ASSERT_TRUE(store::insert_job(**db, started("second", 2000)));
    auto lost = started("lost", 3000);  // never finished, its `gpuwatch run` (a pid no process has here) gone
    lost.monitor_pid = 0x3ffffff0;
    lost.monitor_start_ticks = 1;
    ASSERT_TRUE(store::insert_job(**db, lost));
  }
  auto read = make_store_jobs_reader(dir.file("h.db"), 2s);
  auto two = read(2);
  ASSERT_TRUE(two) << two.error().message;
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].name, "lost");
  EXPECT_TRUE((*two)[0].monitor_lost);
  EXPECT_EQ((*two)[1].name, "second");
  EXPECT_FALSE((*two)[1].monitor_lost);  // no monitor recorded: never judged
  auto all = read(50);  // the connection is kept: a second read works too
  ASSERT_TRUE(all) << all.error().message;
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[2].summary, "{\"energy_wh\":1.5}");
}

TEST(StoreJobsReader, NoDatabaseIsAnErrorAndAStoppingServerIsBusy) {
  store::testing::TempDir dir;
  EXPECT_FALSE(make_store_jobs_reader(dir.file("none.db"), 1s)(10));
  {
    auto db = store::HistoryDatabase::open(dir.file("h.db"), store::OpenOptions{.durable = false});
    ASSERT_TRUE(db);
  }
  auto stopping = std::make_shared<std::atomic<bool>>(true);
  auto stopped = make_store_jobs_reader(dir.file("h.db"), 1s, stopping)(10);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code, exporter::kJobsBusy);
}

}  // namespace store_jobs_test
}  // namespace gpuwatch::recorder
