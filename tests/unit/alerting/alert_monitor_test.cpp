#include "alerting/alert_monitor.hpp"

#include <gtest/gtest.h>

#include "alerts/rule_parser.hpp"
#include "store/alert_log.hpp"
#include "store/history_database.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::alerting {
namespace alert_monitor_test {  // this test file's helpers (unity builds: no clash with another file's)

using namespace std::chrono_literals;
using store::testing::TempDir;

const char* kRules =
    "rules:\n"
    "  - alert: Hot\n"
    "    expr: temperature.gpu > 85\n"
    "    clear: temperature.gpu < 80\n"
    "    for: 5m\n"
    "    repeat: 1h\n"
    "    severity: warning\n"
    "    annotations: {summary: 'GPU {{ $labels.gpu }} at {{ $value }}'}\n";

alerts::Engine engine() {
  auto rules = alerts::parse_rules(kRules, "test.yaml");
  EXPECT_TRUE(rules) << rules.error().message;
  return alerts::Engine(std::move(*rules), "node1");
}

// One GPU at TEMP: the tick at NOW.
struct Feed {
  core::DeviceSnapshot device;
  alerts::TickInput tick(alerts::TimePoint now, double temp) {
    device.index = 0;
    device.get(core::FieldId::Uuid) = core::FieldReading::of(std::string("GPU-0"));
    device.get(core::FieldId::TemperatureGpu) = core::FieldReading::of(temp);
    alerts::TickInput t;
    t.now = now;
    t.host = "node1";
    t.gpu_count = 1;
    t.sampler_age_s = 0.0;
    alerts::GpuInput gpu;
    gpu.index = 0;
    gpu.sample = &device;
    gpu.age_s = 0.0;
    t.gpus.push_back(gpu);
    return t;
  }
};

constexpr alerts::TimePoint kT0 = alerts::TimePoint(std::chrono::seconds(1'780'000'000));

struct Recorded {
  std::vector<alerts::AlertEvent> events;
  MonitorOptions options(const std::string& db) {
    MonitorOptions o;
    o.db_path = db;
    o.notify = [this](const std::vector<alerts::AlertEvent>& e, const std::vector<alerts::Alert>&) {
      events.insert(events.end(), e.begin(), e.end());
    };
    return o;
  }
};

TEST(AlertMonitor, AFiringAlertSurvivesARestartWithoutASecondNotification) {
  TempDir dir;
  const std::string db = dir.file("h.db");
  Feed feed;
  Recorded first;
  {
    auto monitor = AlertMonitor::open(engine(), first.options(db));
    ASSERT_TRUE(monitor) << monitor.error().message;
    for (int s = 0; s <= 400; s += 10) (*monitor)->tick(feed.tick(kT0 + std::chrono::seconds(s), 90));
    ASSERT_EQ(first.events.size(), 1u);
    EXPECT_EQ(first.events[0].kind, alerts::EventKind::Firing);
    EXPECT_EQ(first.events[0].at, kT0 + 300s);
  }
  Recorded second;
  auto monitor = AlertMonitor::open(engine(), second.options(db));
  ASSERT_TRUE(monitor) << monitor.error().message;
  EXPECT_EQ((*monitor)->restored(), 1u);
  ASSERT_EQ((*monitor)->active().size(), 1u);
  EXPECT_EQ((*monitor)->active()[0].state, alerts::AlertState::Firing);
  for (int s = 410; s <= 600; s += 10) (*monitor)->tick(feed.tick(kT0 + std::chrono::seconds(s), 90));
  EXPECT_TRUE(second.events.empty()) << "notified again after the restart";
  // Still hot an hour after the first notification: the repeat counts from it, across the restart.
  for (int s = 610; s <= 3910; s += 10) (*monitor)->tick(feed.tick(kT0 + std::chrono::seconds(s), 90));
  ASSERT_EQ(second.events.size(), 1u);
  EXPECT_EQ(second.events[0].kind, alerts::EventKind::Repeat);
  EXPECT_EQ(second.events[0].at, kT0 + 3900s);
  // Cools below the clear threshold: one resolved event, and the store says so.
  (*monitor)->tick(feed.tick(kT0 + 4000s, 70));
  ASSERT_EQ(second.events.size(), 2u);
  EXPECT_EQ(second.events[1].kind, alerts::EventKind::Resolved);
  auto readback = store::HistoryDatabase::open(db, store::OpenOptions{.read_only = true});
  ASSERT_TRUE(readback);
  auto open = store::read_open_alerts(**readback);
  ASSERT_TRUE(open);
  EXPECT_TRUE(open->empty());
  auto events = store::read_alert_events_since(**readback, 0, 100);
  ASSERT_TRUE(events);
  ASSERT_EQ(events->size(), 3u);  // firing, repeat, resolved
  EXPECT_EQ((*events)[0].kind, "firing");
  EXPECT_EQ((*events)[1].kind, "repeat");
  EXPECT_EQ((*events)[2].kind, "resolved");
}

TEST(AlertMonitor, APendingAlertThatClearsLeavesNothingToRestore) {
  TempDir dir;
  const std::string db = dir.file("h.db");
  Feed feed;
  Recorded rec;
  {
    auto monitor = AlertMonitor::open(engine(), rec.options(db));
    ASSERT_TRUE(monitor);
    (*monitor)->tick(feed.tick(kT0, 90));
    EXPECT_EQ((*monitor)->active().size(), 1u);  // pending
    (*monitor)->tick(feed.tick(kT0 + 10s, 60));
    EXPECT_TRUE((*monitor)->active().empty());
  }
  auto monitor = AlertMonitor::open(engine(), rec.options(db));
  ASSERT_TRUE(monitor);
  EXPECT_EQ((*monitor)->restored(), 0u);
  EXPECT_TRUE(rec.events.empty());
}

TEST(AlertMonitor, OnAScaledClockForRunsInEngineTimeAndTimesComeBackInWallTime) {
  Feed feed;
  Recorded rec;
  MonitorOptions options = rec.options("");
  options.clock = TimeMap(kT0, 30.0);  // a scenario 30 times faster than the wall clock
  auto monitor = AlertMonitor::open(engine(), options);
  ASSERT_TRUE(monitor);
  for (int ms = 0; ms <= 12'000; ms += 500) (*monitor)->tick(feed.tick(kT0 + std::chrono::milliseconds(ms), 90));
  ASSERT_EQ(rec.events.size(), 1u);
  // for: 5m of scenario time is 10 s of wall time.
  EXPECT_EQ(rec.events[0].at, kT0 + 10s);
  EXPECT_EQ(*rec.events[0].alert.fired_at, kT0 + 10s);
  EXPECT_EQ(rec.events[0].alert.active_since, kT0);
}

TEST(TimeMap, MapsBothWaysAroundItsOrigin) {
  TimeMap map(kT0, 4.0);
  EXPECT_EQ(map.to_engine(kT0 + 10s), kT0 + 40s);
  EXPECT_EQ(map.to_wall(kT0 + 40s), kT0 + 10s);
  EXPECT_EQ(map.to_engine(kT0 - 1s), kT0 - 4s);
  TimeMap identity;
  EXPECT_EQ(identity.to_engine(kT0 + 7s), kT0 + 7s);
}

}  // namespace alert_monitor_test
}  // namespace gpuwatch::alerting
