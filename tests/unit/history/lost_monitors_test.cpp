#include "history/lost_monitors.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include "history/jobs_render.hpp"
#include "host/host_name.hpp"
#include "host/process_start.hpp"
#include "store/history_database.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::history {
namespace lost_monitors_test {

store::JobRow running_job(std::int64_t pid, std::int64_t ticks) {
  store::JobRow job;
  job.name = "train";
  job.command = "[\"python\",\"train.py\"]";
  job.user = "alice";
  job.host = "node1";
  job.start_ms = 1'700'000'000'000;
  job.monitor_pid = pid;
  job.monitor_start_ticks = ticks;
  return job;
}

// pid 100 started at tick 5000; pid 200 is another process now (a reused pid); others are gone.
std::optional<std::uint64_t> fake_proc(std::int64_t pid) {
  if (pid == 100) return 5000;
  if (pid == 200) return 9999;
  return std::nullopt;
}

TEST(LostMonitors, AMonitorGoneOrReplacedByAnotherProcessIsLost) {
  EXPECT_FALSE(monitor_lost(running_job(100, 5000), "node1", fake_proc));  // alive
  EXPECT_TRUE(monitor_lost(running_job(200, 5000), "node1", fake_proc));   // pid reused
  EXPECT_TRUE(monitor_lost(running_job(300, 5000), "node1", fake_proc));   // gone
}

TEST(LostMonitors, AFinishedJobAnotherHostsJobOrAnOldRowIsNeverJudged) {
  auto finished = running_job(300, 5000);
  finished.end_ms = 1'700'000'100'000;
  EXPECT_FALSE(monitor_lost(finished, "node1", fake_proc));
  EXPECT_FALSE(monitor_lost(running_job(300, 5000), "node2", fake_proc));
  auto old_row = running_job(300, 5000);
  old_row.monitor_pid.reset();
  old_row.monitor_start_ticks.reset();
  EXPECT_FALSE(monitor_lost(old_row, "node1", fake_proc));
  auto noticed = running_job(100, 5000);
  noticed.monitor_lost_noticed_ms = 1'700'000'200'000;  // said before: stays lost
  EXPECT_TRUE(monitor_lost(noticed, "node1", fake_proc));
}

TEST(LostMonitors, TheWritersNoticeIsGivenOnceAndKeptInTheDatabase) {
  store::testing::TempDir dir;
  auto db = store::HistoryDatabase::open(dir.file("h.db"));
  ASSERT_TRUE(db);
  auto job = running_job(0x3ffffff0, 1);  // a pid no process has here
  job.host = host::host_name();
  auto id = store::insert_job(**db, job);
  ASSERT_TRUE(id);
  auto alive = running_job(::getpid(), static_cast<std::int64_t>(*host::process_start_ticks(::getpid())));
  alive.host = host::host_name();
  ASSERT_TRUE(store::insert_job(**db, alive));
  auto first = notice_lost_monitors(**db);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_NE(first[0].find("job " + std::to_string(*id)), std::string::npos) << first[0];
  EXPECT_NE(first[0].find("monitor lost"), std::string::npos) << first[0];
  EXPECT_TRUE(notice_lost_monitors(**db).empty());  // said once
  auto listed = store::list_jobs(**db);
  ASSERT_TRUE(listed);
  mark_lost_monitors(*listed);
  ASSERT_EQ(listed->size(), 2u);
  int lost = 0;
  for (const auto& row : *listed) lost += row.monitor_lost ? 1 : 0;
  EXPECT_EQ(lost, 1);
}

TEST(LostMonitors, HistoryJobsShowsMonitorLostInTheExitColumnAndAsAStatus) {
  auto lost = running_job(300, 5000);
  lost.id = 7;
  lost.monitor_lost = true;
  const auto now = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'700'000'060'000));
  const std::string table = render_jobs({lost}, JobsFormat::Table, now);
  EXPECT_NE(table.find("monitor lost"), std::string::npos) << table;
  const std::string json = render_jobs({lost}, JobsFormat::Json, now);
  EXPECT_NE(json.find("\"status\": \"monitor lost\""), std::string::npos) << json;
  lost.monitor_lost = false;
  EXPECT_EQ(render_jobs({lost}, JobsFormat::Json, now).find("monitor lost"), std::string::npos);
}

}  // namespace lost_monitors_test
}  // namespace gpuwatch::history
