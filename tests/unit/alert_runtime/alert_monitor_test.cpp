#include "alert_runtime/alert_monitor.hpp"

#include <gtest/gtest.h>

#include "alerts/rule_parser.hpp"
#include "store/alert_log.hpp"
#include "store/history_database.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::alert_runtime {
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

// Issue 23 (continuity): the alerts restored at start go on as the engine's own state.
const char* kContinuityRules =
    "rules:\n"
    "  - alert: Warming\n"  // a windowed condition: no value until the window holds 2 samples again
    "    expr: trend(temperature.gpu, 5m) > 0\n"
    "    for: 5m\n"
    "    severity: warning\n"
    "    annotations: {summary: 'GPU {{ $labels.gpu }} warms up'}\n"
    "  - alert: Finding\n"
    "    findings: {min_severity: warning}\n"
    "    for: 1m\n"
    "    annotations: {summary: 'GPU {{ $labels.gpu }}: {{ $labels.kind }}'}\n";

alerts::Engine continuity_engine() {
  auto rules = alerts::parse_rules(kContinuityRules, "test.yaml");
  EXPECT_TRUE(rules) << rules.error().message;
  return alerts::Engine(std::move(*rules), "node1");
}

diagnose::Finding throttle_finding() {
  diagnose::Finding f;
  f.kind = "thermal_throttle";
  f.severity = diagnose::Severity::Warning;
  f.gpus = {0};
  f.active = true;
  return f;
}

std::vector<alerts::Alert> named(const std::vector<alerts::Alert>& all, const std::string& rule) {
  std::vector<alerts::Alert> out;
  for (const auto& a : all) {
    if (a.rule == rule) out.push_back(a);
  }
  return out;
}

TEST(AlertMonitor, ARestoredPendingAlertWaitsForItsWindowAndFiresOnItsOwnTimer) {
  TempDir dir;
  const std::string db = dir.file("h.db");
  Feed feed;
  Recorded first;
  {
    auto monitor = AlertMonitor::open(continuity_engine(), first.options(db));
    ASSERT_TRUE(monitor) << monitor.error().message;
    for (int s = 0; s <= 100; s += 10) (*monitor)->tick(feed.tick(kT0 + std::chrono::seconds(s), 60 + s / 10.0));
    ASSERT_EQ(named((*monitor)->active(), "Warming").size(), 1u);  // pending from its second tick (two samples)
  }
  Recorded second;
  auto monitor = AlertMonitor::open(continuity_engine(), second.options(db));
  ASSERT_TRUE(monitor) << monitor.error().message;
  ASSERT_EQ((*monitor)->restored(), 1u);
  // The first tick after the restart: one sample in the window, no trend yet. Held, with its timer.
  (*monitor)->tick(feed.tick(kT0 + 110s, 71));
  auto held = named((*monitor)->active(), "Warming");
  ASSERT_EQ(held.size(), 1u) << "a restored pending alert vanished while its window refilled";
  EXPECT_EQ(held[0].state, alerts::AlertState::Pending);
  EXPECT_EQ(held[0].active_since, kT0 + 10s);
  // Still warming: it fires 5 minutes after it started pending before the restart, not after it.
  for (int s = 120; s <= 400; s += 10) (*monitor)->tick(feed.tick(kT0 + std::chrono::seconds(s), 60 + s / 10.0));
  ASSERT_EQ(second.events.size(), 1u);
  EXPECT_EQ(second.events[0].kind, alerts::EventKind::Firing);
  EXPECT_EQ(second.events[0].at, kT0 + 310s);
  // Cooling: it resolves through the engine's own path, with its event, and the store says so.
  for (int s = 410; s <= 800; s += 10) (*monitor)->tick(feed.tick(kT0 + std::chrono::seconds(s), 100 - (s - 400) / 10.0));
  ASSERT_EQ(second.events.size(), 2u);
  EXPECT_EQ(second.events[1].kind, alerts::EventKind::Resolved);
  auto readback = store::HistoryDatabase::open(db, store::OpenOptions{.read_only = true});
  ASSERT_TRUE(readback);
  auto open = store::read_open_alerts(**readback);
  ASSERT_TRUE(open);
  EXPECT_TRUE(open->empty());
}

TEST(AlertMonitor, ARestoredPendingAlertWhoseDataNeverComesBackIsForgottenAfterTheGrace) {
  TempDir dir;
  const std::string db = dir.file("h.db");
  Feed feed;
  Recorded rec;
  {
    auto monitor = AlertMonitor::open(continuity_engine(), rec.options(db));
    ASSERT_TRUE(monitor);
    for (int s = 0; s <= 30; s += 10) (*monitor)->tick(feed.tick(kT0 + std::chrono::seconds(s), 60 + s));
    ASSERT_EQ(named((*monitor)->active(), "Warming").size(), 1u);
  }
  auto monitor = AlertMonitor::open(continuity_engine(), rec.options(db));
  ASSERT_TRUE(monitor);
  auto no_gpu = [&](alerts::TimePoint at) {  // the GPU is gone: no sample, so no value
    alerts::TickInput t = feed.tick(at, 0);
    t.gpus.clear();
    t.gpu_count = 0;
    return t;
  };
  (*monitor)->tick(no_gpu(kT0 + 40s));
  (*monitor)->tick(no_gpu(kT0 + 40s + alerts::Engine::kRestoreGrace - 1s));
  EXPECT_EQ(named((*monitor)->active(), "Warming").size(), 1u);
  (*monitor)->tick(no_gpu(kT0 + 40s + alerts::Engine::kRestoreGrace));
  EXPECT_TRUE(named((*monitor)->active(), "Warming").empty());
  EXPECT_TRUE(rec.events.empty());  // a pending alert never notified: it goes without an event
}

TEST(AlertMonitor, ARestoredFiringFindingAlertStaysWhileTheFindingGoesOnAndResolvesWithAnEvent) {
  TempDir dir;
  const std::string db = dir.file("h.db");
  Feed feed;
  auto with_finding = [&](alerts::TimePoint at, bool finding) {
    alerts::TickInput t = feed.tick(at, 70);
    if (finding) t.findings.push_back(throttle_finding());
    return t;
  };
  Recorded first;
  {
    auto monitor = AlertMonitor::open(continuity_engine(), first.options(db));
    ASSERT_TRUE(monitor);
    for (int s = 0; s <= 90; s += 10) (*monitor)->tick(with_finding(kT0 + std::chrono::seconds(s), true));
    ASSERT_EQ(first.events.size(), 1u);
    EXPECT_EQ(first.events[0].kind, alerts::EventKind::Firing);
  }
  Recorded second;
  auto monitor = AlertMonitor::open(continuity_engine(), second.options(db));
  ASSERT_TRUE(monitor);
  ASSERT_EQ(named((*monitor)->active(), "Finding").size(), 1u);
  // The live diagnosis was primed from the history: the finding is there from the first tick.
  for (int s = 100; s <= 200; s += 10) (*monitor)->tick(with_finding(kT0 + std::chrono::seconds(s), true));
  auto still = named((*monitor)->active(), "Finding");
  ASSERT_EQ(still.size(), 1u);
  EXPECT_EQ(still[0].state, alerts::AlertState::Firing);
  EXPECT_EQ(still[0].active_since, kT0);
  EXPECT_TRUE(second.events.empty()) << "notified again after the restart";
  (*monitor)->tick(with_finding(kT0 + 210s, false));
  ASSERT_EQ(second.events.size(), 1u);
  EXPECT_EQ(second.events[0].kind, alerts::EventKind::Resolved);
  EXPECT_EQ(second.events[0].alert.labels.at("kind"), "thermal_throttle");
  EXPECT_TRUE((*monitor)->active().empty());
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
}  // namespace gpuwatch::alert_runtime
