// The engine's state machine: for, hysteresis, keep_firing_for, repeat, restore, labels and
// annotations, on hand-made ticks (one GPU whose temperature the test sets).
#include "alerts/engine.hpp"

#include <gtest/gtest.h>

#include "alerts/rule_parser.hpp"

namespace gpuwatch::alerts {
namespace engine_test {  // this test file's helpers (unity builds: no clash with another file's)

TimePoint at(double s) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(1.79e9 + s)));
}

RuleSet rules(const std::string& yaml) {
  auto r = parse_rules(yaml, "test.yaml");
  if (!r) throw std::runtime_error(r.error().message);
  return std::move(*r);
}

class Node {
 public:
  explicit Node(unsigned gpus = 1) : devices_(gpus) {
    for (unsigned g = 0; g < gpus; ++g) {
      devices_[g].index = g;
      devices_[g].get(core::FieldId::Uuid) = core::FieldReading::of("GPU-" + std::to_string(g));
      set_temp(g, 50);
    }
  }
  void set_temp(unsigned g, std::optional<double> t) {
    auto& r = devices_[g].get(core::FieldId::TemperatureGpu);
    r = t ? core::FieldReading::of(*t) : core::FieldReading::absent(core::FieldStatus::Failed, core::ReadError{core::ErrorReason::Other, 999});
  }
  TickInput tick(double s) const {
    TickInput t;
    t.now = at(s);
    t.gpu_count = static_cast<unsigned>(devices_.size());
    for (const auto& d : devices_) {
      GpuInput g;
      g.index = d.index;
      g.sample = &d;
      g.age_s = 0.1;
      g.process_commands = {"python train.py"};
      t.gpus.push_back(g);
    }
    return t;
  }

 private:
  std::vector<core::DeviceSnapshot> devices_;
};

const char* kHot = R"Y(
rules:
  - alert: Hot
    expr: temperature.gpu > 85
    for: 5m
    repeat: 1h
    severity: warning
    labels: {team: ml}
    annotations:
      summary: "GPU {{ $labels.gpu }} on {{ $labels.instance }} at {{ $value }} °C ({{ $process }})"
)Y";

// Runs a 10 s tick from FROM to TO (inclusive) and returns the events with their times.
std::vector<AlertEvent> run(Engine& e, Node& n, double from, double to, double step = 10) {
  std::vector<AlertEvent> all;
  for (double t = from; t <= to + 1e-9; t += step)
    for (auto& ev : e.evaluate(n.tick(t))) all.push_back(std::move(ev));
  return all;
}

double seconds(TimePoint t) { return std::chrono::duration<double>(t - at(0)).count(); }

TEST(AlertsEngine, PendingThenFiringAtTheForDeadlineThenResolved) {
  Engine e(rules(kHot), "n1");
  Node n;
  n.set_temp(0, 90);
  auto ev = run(e, n, 0, 290);
  EXPECT_TRUE(ev.empty());
  auto active = e.active();
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].state, AlertState::Pending);
  EXPECT_EQ(active[0].active_since, at(0));
  ev = run(e, n, 300, 300);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Firing);
  EXPECT_EQ(ev[0].at, at(300));
  const Alert a = ev[0].alert;
  EXPECT_EQ(a.state, AlertState::Firing);
  EXPECT_EQ(a.gpu, 0u);
  EXPECT_EQ(a.labels, (Labels{{"alertname", "Hot"}, {"gpu", "0"}, {"host", "n1"}, {"severity", "warning"},
                              {"team", "ml"}, {"uuid", "GPU-0"}}));
  EXPECT_EQ(a.annotations.at("summary"), "GPU 0 on n1 at 90 °C (python train.py)");
  EXPECT_EQ(a.fired_at, at(300));
  EXPECT_EQ(a.last_notified, at(300));
  n.set_temp(0, 80);
  ev = run(e, n, 310, 310);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Resolved);
  EXPECT_EQ(ev[0].alert.resolved_at, at(310));
  EXPECT_TRUE(e.active().empty());
  ASSERT_EQ(e.recently_resolved().size(), 1u);
  EXPECT_EQ(e.recently_resolved()[0].fingerprint(), a.fingerprint());
}

TEST(AlertsEngine, PendingIsForgottenWhenTheConditionStopsOrGoesMissing) {
  Engine e(rules(kHot), "n1");
  Node n;
  n.set_temp(0, 90);
  run(e, n, 0, 200);
  n.set_temp(0, 70);
  run(e, n, 210, 210);
  EXPECT_TRUE(e.active().empty());
  n.set_temp(0, 90);
  run(e, n, 220, 400);
  n.set_temp(0, std::nullopt);  // absent: not true, so the for: restarts
  run(e, n, 410, 410);
  EXPECT_TRUE(e.active().empty());
  n.set_temp(0, 90);
  auto ev = run(e, n, 420, 720);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(seconds(ev[0].at), 420 + 300);
}

TEST(AlertsEngine, FiringAlertDoesNotResolveWhenItsDataGoesMissing) {
  Engine e(rules(kHot), "n1");
  Node n;
  n.set_temp(0, 90);
  run(e, n, 0, 300);
  n.set_temp(0, std::nullopt);
  EXPECT_TRUE(run(e, n, 310, 1000).empty());
  ASSERT_EQ(e.active().size(), 1u);
  EXPECT_EQ(e.active()[0].state, AlertState::Firing);
  n.set_temp(0, 60);
  auto ev = run(e, n, 1010, 1010);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Resolved);
}

TEST(AlertsEngine, AGpuThatLeavesTheTickKeepsItsFiringAlertAndDropsItsPendingOne) {
  Engine e(rules(kHot), "n1");
  Node n(2);
  n.set_temp(0, 90);
  run(e, n, 0, 300);  // GPU 0 firing
  n.set_temp(1, 90);
  run(e, n, 310, 400);  // GPU 1 pending
  ASSERT_EQ(e.active().size(), 2u);
  auto t = n.tick(410);
  t.gpus.clear();  // neither GPU in this tick (their sampler lost them)
  EXPECT_TRUE(e.evaluate(t).empty());
  auto active = e.active();
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].gpu, 0u);
  EXPECT_EQ(active[0].state, AlertState::Firing);
  EXPECT_EQ(active[0].value, 90.0);  // the last value seen
}

TEST(AlertsEngine, RepeatEveryIntervalWhileFiring) {
  Engine e(rules(kHot), "n1");
  Node n;
  n.set_temp(0, 90);
  auto ev = run(e, n, 0, 300 + 3 * 3600);
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].kind, EventKind::Firing);
  for (int i = 1; i <= 3; ++i) {
    EXPECT_EQ(ev[i].kind, EventKind::Repeat);
    EXPECT_EQ(seconds(ev[i].at), 300 + i * 3600);
    EXPECT_EQ(ev[i].alert.fired_at, at(300));
  }
}

TEST(AlertsEngine, RepeatZeroNeverRenotifies) {
  Engine e(rules(R"Y(
rules:
  - {alert: Hot, expr: temperature.gpu > 85, repeat: 0s, severity: info}
)Y"), "n1");
  Node n;
  n.set_temp(0, 90);
  auto ev = run(e, n, 0, 86400, 600);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Firing);
  EXPECT_EQ(ev[0].at, at(0));  // for: 0 fires at the first true evaluation
}

TEST(AlertsEngine, HysteresisResolvesOnlyWhenTheClearConditionHolds) {
  Engine e(rules(R"Y(
rules:
  - alert: Hot
    expr: temperature.gpu > 85
    clear: temperature.gpu < 80
    for: 1m
    severity: warning
)Y"), "n1");
  Node n;
  n.set_temp(0, 90);
  auto ev = run(e, n, 0, 60);
  ASSERT_EQ(ev.size(), 1u);
  n.set_temp(0, 82);  // below the threshold, above the clear level: still firing
  EXPECT_TRUE(run(e, n, 70, 600).empty());
  EXPECT_EQ(e.active().at(0).state, AlertState::Firing);
  n.set_temp(0, std::nullopt);  // absent clear: not a clear
  EXPECT_TRUE(run(e, n, 610, 700).empty());
  n.set_temp(0, 79);
  ev = run(e, n, 710, 710);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Resolved);
}

TEST(AlertsEngine, KeepFiringForHoldsAfterTheConditionStops) {
  Engine e(rules(R"Y(
rules:
  - {alert: Hot, expr: temperature.gpu > 85, keep_firing_for: 2m, severity: critical}
)Y"), "n1");
  Node n;
  n.set_temp(0, 90);
  ASSERT_EQ(run(e, n, 0, 0).size(), 1u);
  n.set_temp(0, 60);
  EXPECT_TRUE(run(e, n, 10, 60).empty());  // first false at 10 s
  n.set_temp(0, 90);                        // true again: the keep period restarts
  EXPECT_TRUE(run(e, n, 70, 70).empty());
  n.set_temp(0, 60);
  EXPECT_TRUE(run(e, n, 80, 190).empty());
  auto ev = run(e, n, 200, 200);  // 80 + 120
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Resolved);
}

TEST(AlertsEngine, RestoreKeepsFiringWithoutNotifyingTwice) {
  std::vector<Alert> store;
  {
    Engine e(rules(kHot), "n1");
    Node n;
    n.set_temp(0, 90);
    auto ev = run(e, n, 0, 1000);
    ASSERT_EQ(ev.size(), 1u);
    store = e.active();
  }
  // A restart at 1200 s: the alert is still firing, its repeat (1 h) counts from 300 s.
  Engine e(rules(kHot), "n1");
  e.restore(store);
  ASSERT_EQ(e.active().size(), 1u);
  Node n;
  n.set_temp(0, 90);
  auto ev = run(e, n, 1200, 3890);
  EXPECT_TRUE(ev.empty());
  ev = run(e, n, 3900, 3900);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Repeat);
  EXPECT_EQ(ev[0].alert.fingerprint(), store[0].fingerprint());
  EXPECT_EQ(ev[0].alert.active_since, at(0));
  // Cooled down while gpuwatch was stopped: the restored alert resolves at the first evaluation.
  Engine cold(rules(kHot), "n1");
  cold.restore(store);
  n.set_temp(0, 60);
  ev = run(cold, n, 1200, 1200);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Resolved);
}

TEST(AlertsEngine, OneAlertPerGpuAndNodeRules) {
  Engine e(rules(R"Y(
rules:
  - {alert: Hot, expr: temperature.gpu > 85, severity: warning}
  - {alert: Missing, scope: node, expr: 'gpus < max(gpus, 1h)', severity: critical}
  - {alert: DriverGone, scope: node, expr: driver_up == 0, severity: critical}
)Y"), "n1");
  Node n(3);
  n.set_temp(1, 90);
  n.set_temp(2, 95);
  auto ev = run(e, n, 0, 0);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].alert.gpu, 1u);
  EXPECT_EQ(ev[1].alert.gpu, 2u);
  auto t = n.tick(10);
  t.gpu_count = 2;
  ev = e.evaluate(t);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.rule, "Missing");
  EXPECT_FALSE(ev[0].alert.gpu);
  EXPECT_EQ(ev[0].alert.value, 2.0);
  EXPECT_EQ(ev[0].alert.labels.count("gpu"), 0u);
  t = n.tick(20);
  t.gpu_count.reset();
  ev = e.evaluate(t);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.rule, "DriverGone");
}

TEST(AlertsEngine, FindingsAsAlertsOnePerProblemInTheFindingsWords) {
  Engine e(rules(R"Y(
rules:
  - {alert: GpuDiagnosisFinding, findings: {min_severity: warning}, for: 2m,
     annotations: {summary: "GPU {{ $labels.gpu }}: {{ $labels.kind }} ({{ $labels.severity }})", runbook: "see {{ $labels.kind }}"}}
)Y"), "n1");
  Node n(4);
  auto tick = [&](double s, diagnose::Severity sev) {
    auto t = n.tick(s);
    diagnose::Finding f;
    f.kind = "thermal_throttle";
    f.severity = sev;
    f.gpus = {3};
    f.summary = "thermal throttling 45 % of the time";
    f.detail = "SM clock -35 % up to 92 °C";
    f.advice = {"check the airflow", "lower the power limit"};
    t.findings.push_back(f);
    diagnose::Finding info;
    info.kind = "memory_pressure";
    info.severity = diagnose::Severity::Info;
    info.gpus = {1};
    t.findings.push_back(info);
    return e.evaluate(t);
  };
  for (double s = 0; s < 120; s += 10) EXPECT_TRUE(tick(s, diagnose::Severity::Warning).empty());
  auto ev = tick(120, diagnose::Severity::Warning);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.labels.at("kind"), "thermal_throttle");
  EXPECT_EQ(ev[0].alert.severity, Severity::Warning);
  EXPECT_EQ(ev[0].alert.gpu, 3u);
  EXPECT_EQ(ev[0].alert.labels.count("gpus"), 0u);  // one GPU: the labels are gpuwatch_finding's
  // The finding's own sentence, not "thermal_throttle (warning)"; its advice in the description;
  // the rule's other annotations as templated.
  EXPECT_EQ(ev[0].alert.annotations.at("summary"), "GPU 3 on n1: thermal throttling 45 % of the time");
  EXPECT_EQ(ev[0].alert.annotations.at("description"),
            "SM clock -35 % up to 92 °C\ntry: check the airflow\ntry: lower the power limit");
  EXPECT_EQ(ev[0].alert.annotations.at("runbook"), "see thermal_throttle");
  // Escalation to critical is the same problem: the warning alert resolves and the critical one
  // fires in the same tick (its for: counts from the problem's start), one row at a time.
  ev = tick(130, diagnose::Severity::Critical);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::Resolved);
  EXPECT_EQ(ev[0].alert.severity, Severity::Warning);
  EXPECT_EQ(ev[1].kind, EventKind::Firing);
  EXPECT_EQ(ev[1].alert.severity, Severity::Critical);
  EXPECT_EQ(ev[1].alert.labels.at("severity"), "critical");
  ASSERT_EQ(e.active().size(), 1u);
  EXPECT_EQ(e.active()[0].state, AlertState::Firing);
  EXPECT_EQ(e.active()[0].severity, Severity::Critical);
  EXPECT_TRUE(tick(140, diagnose::Severity::Critical).empty());
}

TEST(AlertsEngine, AFindingOverSeveralGpusIsOneAlertFiledUnderItsCause) {
  Engine e(rules(R"Y(
rules:
  - {alert: GpuDiagnosisFinding, findings: {min_severity: warning}, for: 0s,
     annotations: {summary: "GPU {{ $labels.gpu }}: {{ $labels.kind }}"}}
)Y"), "n1");
  Node n(4);
  auto t = n.tick(10);
  diagnose::Finding f;
  f.kind = "collective_hang";
  f.severity = diagnose::Severity::Critical;
  f.gpus = {0, 1, 2, 3};
  f.cause_gpus = {3};
  f.summary = "collective hang: GPU 3 dead, GPUs 0,1,2 spin at 100 %";
  t.findings.push_back(f);
  auto ev = e.evaluate(t);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.gpu, 3u);
  EXPECT_EQ(ev[0].alert.labels.at("gpu"), "3");
  EXPECT_EQ(ev[0].alert.labels.at("gpus"), "0,1,2,3");
  EXPECT_EQ(ev[0].alert.annotations.at("summary"), "GPUs 0,1,2,3 on n1: collective hang: GPU 3 dead, GPUs 0,1,2 spin at 100 %");
  // A restart restores it as the same problem: no new Firing event while the finding holds.
  const auto restored = e.active();
  Engine again(rules(R"Y(
rules:
  - {alert: GpuDiagnosisFinding, findings: {min_severity: warning}, for: 0s,
     annotations: {summary: "GPU {{ $labels.gpu }}: {{ $labels.kind }}"}}
)Y"), "n1");
  again.restore(restored);
  t = n.tick(20);
  t.findings.push_back(f);
  EXPECT_TRUE(again.evaluate(t).empty());
  ASSERT_EQ(again.active().size(), 1u);
  EXPECT_EQ(again.active()[0].fingerprint(), restored[0].fingerprint());
  // The finding ends: one Resolved event.
  t = n.tick(30);
  ev = again.evaluate(t);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Resolved);
}

TEST(AlertsEngine, XidRulesCarryTheXidLabel) {
  Engine e(rules(R"Y(
rules:
  - {alert: Xid, expr: 'xid_age("48|79") < 300', severity: critical,
     annotations: {summary: "Xid {{ $labels.xid }} {{ $value | humanizeDuration }} ago"}}
)Y"), "n1");
  Node n;
  auto t = n.tick(100);
  t.gpus[0].xids = {{48, at(40)}, {31, at(90)}};
  auto ev = e.evaluate(t);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.labels.at("xid"), "48");
  EXPECT_EQ(ev[0].alert.annotations.at("summary"), "Xid 48 1m 0s ago");
  t = n.tick(340);  // 300 s after the Xid
  t.gpus[0].xids = {{48, at(40)}};
  ev = e.evaluate(t);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Resolved);
}

// One row per problem (issue 23): a rule that covers a finding's kind and the findings rule.
const char* kCoversHot = R"Y(
rules:
  - {alert: Hot, expr: temperature.gpu > 85, covers: [thermal_throttle, collective_hang], for: 1m, severity: warning,
     annotations: {summary: "GPU {{ $labels.gpu }} is hot", description: "cool it"}}
  - {alert: GpuDiagnosisFinding, findings: {min_severity: warning}, for: 0s,
     annotations: {summary: "GPU {{ $labels.gpu }}: {{ $labels.kind }}"}}
)Y";

diagnose::Finding covers_finding(std::string kind, std::vector<unsigned> gpus) {
  diagnose::Finding f;
  f.kind = std::move(kind);
  f.severity = diagnose::Severity::Warning;
  f.gpus = std::move(gpus);
  f.summary = "thermal throttling 45 % of the time";
  f.detail = "SM clock -35 % up to 92 °C";
  f.advice = {"check the airflow"};
  return f;
}

std::vector<std::string> rows(const Engine& e) {
  std::vector<std::string> out;
  for (const auto& a : e.active()) out.push_back(a.rule + "@" + std::to_string(a.gpu.value_or(99)));
  return out;
}

TEST(AlertsEngine, ARuleThatCoversAFindingsKindIsItsOneRowInTheFindingsWords) {
  Engine e(rules(kCoversHot), "n1");
  Node n(2);
  auto tick = [&](double s) {
    auto t = n.tick(s);
    t.findings.push_back(covers_finding("thermal_throttle", {0}));
    return e.evaluate(t);
  };
  // Not hot yet: the finding is the row.
  auto ev = tick(0);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.rule, "GpuDiagnosisFinding");
  EXPECT_EQ(rows(e), std::vector<std::string>{"GpuDiagnosisFinding@0"});
  // Hot: the covering rule's alert takes over. The finding's alert had paged: it resolves and Hot
  // fires in the same tick (its for: does not page the problem twice), in the finding's words
  // and advice, not its own template.
  n.set_temp(0, 90);
  ev = tick(10);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kind, EventKind::Resolved);
  EXPECT_EQ(ev[0].alert.rule, "GpuDiagnosisFinding");
  EXPECT_EQ(ev[1].kind, EventKind::Firing);
  EXPECT_EQ(ev[1].alert.rule, "Hot");
  EXPECT_EQ(ev[1].alert.annotations.at("summary"), "GPU 0 on n1: thermal throttling 45 % of the time");
  EXPECT_EQ(ev[1].alert.annotations.at("description"), "SM clock -35 % up to 92 °C\ntry: check the airflow");
  EXPECT_EQ(rows(e), std::vector<std::string>{"Hot@0"});
  EXPECT_TRUE(tick(70).empty());
  EXPECT_EQ(rows(e), std::vector<std::string>{"Hot@0"});
  // Without the finding it says its own template; GPU 1, hot without a finding, is its own row.
  n.set_temp(1, 90);
  ev = e.evaluate(n.tick(80));
  EXPECT_TRUE(ev.empty());
  ASSERT_EQ(e.active().size(), 2u);
  EXPECT_EQ(e.active()[0].annotations.at("summary"), "GPU 0 is hot");
}

TEST(AlertsEngine, APendingFindingAlertGivesWayToTheCoveringRuleAndItsFor) {
  Engine e(rules(R"Y(
rules:
  - {alert: Hot, expr: temperature.gpu > 85, covers: [thermal_throttle], for: 1m, severity: warning}
  - {alert: GpuDiagnosisFinding, findings: {min_severity: warning}, for: 2m}
)Y"), "n1");
  Node n(1);
  auto tick = [&](double s) {
    auto t = n.tick(s);
    t.findings.push_back(covers_finding("thermal_throttle", {0}));
    return e.evaluate(t);
  };
  EXPECT_TRUE(tick(0).empty());
  EXPECT_EQ(rows(e), std::vector<std::string>{"GpuDiagnosisFinding@0"});
  n.set_temp(0, 90);
  EXPECT_TRUE(tick(10).empty());  // the pending finding alert is forgotten, silently
  EXPECT_EQ(rows(e), std::vector<std::string>{"Hot@0"});
  EXPECT_TRUE(tick(60).empty());
  auto ev = tick(70);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.rule, "Hot");
  EXPECT_EQ(ev[0].kind, EventKind::Firing);
  EXPECT_EQ(ev[0].alert.annotations.at("summary"), "GPU 0 on n1: thermal throttling 45 % of the time");
  // Cool again, the finding still active: Hot resolves, the finding's alert starts its for: anew.
  n.set_temp(0, 50);
  ev = tick(80);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].kind, EventKind::Resolved);
  EXPECT_EQ(rows(e), std::vector<std::string>{"GpuDiagnosisFinding@0"});
  EXPECT_EQ(e.active()[0].state, AlertState::Pending);
}

TEST(AlertsEngine, AFindingOverSeveralGpusQuietsTheRuleThatCoversItOnThoseGpus) {
  Engine e(rules(kCoversHot), "n1");
  Node n(3);
  for (unsigned g = 0; g < 3; ++g) n.set_temp(g, 90);
  auto t = n.tick(0);
  e.evaluate(t);
  EXPECT_EQ(rows(e), (std::vector<std::string>{"Hot@0", "Hot@1", "Hot@2"}));
  // A job's hang over GPUs 0 and 1: one row, the finding's; Hot stays on GPU 2 only, and it
  // does not fire on GPUs 0 and 1 once its for: has run out.
  for (double s : {10.0, 70.0, 130.0}) {
    t = n.tick(s);
    t.findings.push_back(covers_finding("collective_hang", {0, 1}));
    for (const auto& ev : e.evaluate(t)) EXPECT_FALSE(ev.alert.rule == "Hot" && ev.alert.gpu != 2u) << s;
    EXPECT_EQ(rows(e), (std::vector<std::string>{"Hot@2", "GpuDiagnosisFinding@0"})) << s;
  }
  // A kind the rule does not cover changes nothing.
  Engine other(rules(kCoversHot), "n1");
  t = n.tick(0);
  t.findings.push_back(covers_finding("memory_leak", {0}));
  other.evaluate(t);
  EXPECT_EQ(rows(other), (std::vector<std::string>{"Hot@0", "Hot@1", "Hot@2", "GpuDiagnosisFinding@0"}));
}

TEST(AlertsEngine, CoversNamesKnownKindsOnPerGpuExprRules) {
  auto bad = parse_rules("rules:\n  - {alert: A, expr: temperature.gpu > 1, severity: info, covers: [memory_leek]}\n", "r.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("'memory_leek' is not a finding kind"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("memory_leak"), std::string::npos) << bad.error().message;
  bad = parse_rules("rules:\n  - {alert: A, findings: {}, covers: [memory_leak]}\n", "r.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("'covers'"), std::string::npos) << bad.error().message;
  bad = parse_rules("rules:\n  - {alert: A, scope: node, expr: gpus < 1, severity: info, covers: [gpu_lost]}\n", "r.yaml");
  ASSERT_FALSE(bad);
  auto good = parse_rules("rules:\n  - {alert: A, expr: lost == 1, severity: critical, covers: [gpu_lost, xid]}\n", "r.yaml");
  ASSERT_TRUE(good) << good.error().message;
  EXPECT_EQ(good->rules[0].covers, (std::vector<std::string>{"gpu_lost", "xid"}));
}

}  // namespace engine_test
}  // namespace gpuwatch::alerts
