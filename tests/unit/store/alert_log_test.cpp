#include "store/alert_log.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>

#include "store/history_retention.hpp"
#include "store/migrations.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::store {
namespace alert_log_test {  // this test file's helpers (unity builds: no clash with another file's)

using testing::TempDir;

constexpr std::int64_t kT0 = 1'780'000'000'000;

AlertRow row(const std::string& fp, const std::string& state, std::int64_t updated, std::optional<unsigned> gpu = 3) {
  AlertRow r;
  r.fingerprint = fp;
  r.rule = "GpuTemperatureHigh";
  r.severity = "warning";
  r.state = state;
  r.gpu = gpu;
  r.value = 91.5;
  r.active_since_ms = kT0;
  if (state != "pending") r.fired_ms = kT0 + 300'000;
  if (state == "resolved") r.resolved_ms = updated;
  r.updated_ms = updated;
  r.alert_json = "{\"name\":\"GpuTemperatureHigh\",\"state\":\"" + state + "\"}";
  return r;
}

AlertEventRow event(const std::string& fp, const std::string& kind, std::int64_t t) {
  AlertEventRow e;
  e.time_ms = t;
  e.fingerprint = fp;
  e.kind = kind;
  e.rule = "GpuTemperatureHigh";
  e.severity = "warning";
  e.gpu = 3;
  e.value = 91.5;
  e.alert_json = "{}";
  return e;
}

TEST(AlertLog, OpenAlertsComeBackAfterReopeningTheFile) {
  TempDir dir;
  {
    auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
    ASSERT_TRUE(db) << db.error().message;
    ASSERT_TRUE(write_alerts(**db, {row("aa", "firing", kT0 + 300'000), row("bb", "pending", kT0 + 1000, std::nullopt),
                                    row("cc", "resolved", kT0 + 400'000)},
                             {event("aa", "firing", kT0 + 300'000)}));
  }
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.read_only = true});
  ASSERT_TRUE(db) << db.error().message;
  auto open = read_open_alerts(**db);
  ASSERT_TRUE(open) << open.error().message;
  ASSERT_EQ(open->size(), 2u);  // the resolved one is history, not state to restore
  EXPECT_EQ((*open)[0].fingerprint, "aa");
  EXPECT_EQ((*open)[0].gpu, 3u);
  EXPECT_EQ((*open)[0].fired_ms, kT0 + 300'000);
  EXPECT_EQ((*open)[0].value, 91.5);
  EXPECT_EQ((*open)[1].fingerprint, "bb");
  EXPECT_FALSE((*open)[1].gpu.has_value());  // a node alert
  EXPECT_FALSE((*open)[1].fired_ms.has_value());
}

TEST(AlertLog, AStateChangeReplacesTheRowAndEventsAccumulate) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db);
  ASSERT_TRUE(write_alerts(**db, {row("aa", "firing", kT0 + 300'000)}, {event("aa", "firing", kT0 + 300'000)}));
  ASSERT_TRUE(write_alerts(**db, {row("aa", "resolved", kT0 + 900'000)}, {event("aa", "resolved", kT0 + 900'000)}));
  auto open = read_open_alerts(**db);
  ASSERT_TRUE(open);
  EXPECT_TRUE(open->empty());
  auto recent = read_alerts_since(**db, kT0, 10);
  ASSERT_TRUE(recent);
  ASSERT_EQ(recent->size(), 1u);
  EXPECT_EQ((*recent)[0].state, "resolved");
  auto events = read_alert_events_since(**db, kT0, 10);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].kind, "firing");
  EXPECT_EQ((*events)[1].kind, "resolved");
  auto newest = read_alert_events_since(**db, kT0, 1);  // the limit keeps the newest
  ASSERT_TRUE(newest);
  ASSERT_EQ(newest->size(), 1u);
  EXPECT_EQ((*newest)[0].kind, "resolved");
}

TEST(AlertLog, APendingAlertThatWentAwayIsForgottenButAFiringOneIsNot) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db);
  ASSERT_TRUE(write_alerts(**db, {row("pp", "pending", kT0), row("ff", "firing", kT0)}, {}));
  ASSERT_TRUE(write_alerts(**db, {}, {}, {"pp", "ff"}));
  auto open = read_open_alerts(**db);
  ASSERT_TRUE(open);
  ASSERT_EQ(open->size(), 1u);
  EXPECT_EQ((*open)[0].fingerprint, "ff");
}

TEST(AlertLog, PruneDropsOldEventsAndResolvedAlertsOnly) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db);
  ASSERT_TRUE(write_alerts(**db, {row("old", "resolved", kT0), row("firing", "firing", kT0)},
                           {event("old", "resolved", kT0), event("new", "firing", kT0 + 10'000)}));
  auto deleted = prune_alerts(**db, kT0 + 5'000);
  ASSERT_TRUE(deleted);
  EXPECT_EQ(*deleted, 2);
  auto open = read_open_alerts(**db);
  ASSERT_TRUE(open);
  EXPECT_EQ(open->size(), 1u);  // a firing alert is state, however old
  auto events = read_alert_events_since(**db, 0, 10);
  ASSERT_TRUE(events);
  EXPECT_EQ(events->size(), 1u);
}

TEST(AlertLog, RetentionDropsAlertEventsWithTheRawSamples) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db);
  ASSERT_TRUE(write_alerts(**db, {row("old", "resolved", kT0), row("firing", "firing", kT0)},
                           {event("old", "resolved", kT0), event("new", "firing", kT0 + 8LL * 24 * 3600 * 1000)}));
  RetentionPolicy policy;  // raw samples kept 7 days
  auto result = apply_retention(**db, policy, kT0 + 8LL * 24 * 3600 * 1000);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->alert_rows_deleted, 2);
  auto open = read_open_alerts(**db);
  ASSERT_TRUE(open);
  EXPECT_EQ(open->size(), 1u);
}

TEST(AlertLog, AFileOlderThanSchema6ReadsAsNoAlerts) {
  TempDir dir;
  auto db = HistoryDatabase::open(dir.file("h.db"), OpenOptions{.durable = false});
  ASSERT_TRUE(db);
  (*db)->sql().exec("DROP TABLE alert_events");
  auto open = read_open_alerts(**db);
  ASSERT_TRUE(open);
  EXPECT_TRUE(open->empty());
  auto events = read_alert_events_since(**db, 0, 10);
  ASSERT_TRUE(events);
  EXPECT_TRUE(events->empty());
}

}  // namespace alert_log_test
}  // namespace gpuwatch::store
