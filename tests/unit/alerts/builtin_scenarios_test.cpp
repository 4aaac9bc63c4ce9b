// The built-in rules on the simulator's scenarios: which alerts fire, on which GPU, and when
// relative to the rule's for: deadline (the onset is read from the raw samples, not from the
// engine), within one tick.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "alerts/rule_parser.hpp"

#include "scenario_feed.hpp"

namespace gpuwatch::alerts::testing {
namespace {

TEST(AlertsBuiltinScenarios, Explore) {
  const char* which = std::getenv("GPUWATCH_ALERTS_EXPLORE");
  if (!which) GTEST_SKIP() << "set GPUWATCH_ALERTS_EXPLORE=scenario:seconds";
  std::string spec = which;
  auto colon = spec.find(':');
  RuleSet rules = builtin_rules();
  if (const char* file = std::getenv("GPUWATCH_ALERTS_RULES")) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = parse_rules(text.str(), file);
    ASSERT_TRUE(parsed) << parsed.error().message;
    rules = *parsed;
  }
  auto run = run_scenario(spec.substr(0, colon), std::stod(spec.substr(colon + 1)), 1, rules);
  std::cout << run.listing();
}


using core::FieldId;

bool has_process(const core::DeviceSnapshot& d) { return d.state == core::DeviceState::Ok && !d.processes.empty(); }

// Alerts at warning or worse other than those ALLOWED (alert name, GPU).
std::vector<std::string> unexpected(const ScenarioRun& run, const std::set<std::pair<std::string, int>>& allowed) {
  std::vector<std::string> out;
  for (const auto& e : run.events) {
    if (e.kind != EventKind::Firing || e.alert.severity == Severity::Info) continue;
    const int gpu = e.alert.gpu ? static_cast<int>(*e.alert.gpu) : -1;
    if (!allowed.count({e.alert.rule, gpu})) out.push_back(e.alert.rule + "@" + std::to_string(gpu));
  }
  return out;
}

TEST(AlertsBuiltinScenarios, ThermalRunawayFiresAtTheForDeadline) {
  auto run = run_scenario("thermal_runaway", 700);
  auto fired = run.first_firing("GpuTemperatureHigh", 0u);
  ASSERT_TRUE(fired) << run.listing();
  auto onset = run.onset(0, *fired, [](const core::DeviceSnapshot& d) { return field(d, FieldId::TemperatureGpu) > 85; });
  ASSERT_TRUE(onset);
  EXPECT_NEAR(*fired, *onset + 300, run.step_s) << run.listing();
  EXPECT_EQ(unexpected(run, {{"GpuTemperatureHigh", 0}, {"GpuThermalThrottling", 0}, {"GpuDiagnosisFinding", 0}}),
            std::vector<std::string>{}) << run.listing();
}

TEST(AlertsBuiltinScenarios, HungJobAfterABusyPeriod) {
  auto run = run_scenario("hung_job", 900, 2);
  auto fired = run.first_firing("GpuHungJob", 0u);
  ASSERT_TRUE(fired) << run.listing();
  auto onset = run.onset(0, *fired, [](const core::DeviceSnapshot& d) {
    return field(d, FieldId::UtilizationGpu) == 0 && has_process(d);
  });
  ASSERT_TRUE(onset);
  EXPECT_GT(*onset, 0);  // it was busy before
  EXPECT_NEAR(*fired, *onset + 600, run.step_s) << run.listing();
  EXPECT_FALSE(run.first_firing("GpuIdleAllocation", 0u)) << "a hung job is not an idle allocation\n" << run.listing();
  EXPECT_EQ(unexpected(run, {{"GpuHungJob", 0}, {"GpuDiagnosisFinding", 0}}), std::vector<std::string>{}) << run.listing();
}

// The built-in rules as Prometheus runs them: no `covers` (it sees no finding's alert state).
RuleSet rules_without_covers() {
  RuleSet rules = builtin_rules();
  for (auto& r : rules.rules) r.covers.clear();
  return rules;
}

// The active rows of RUN's tick I that are about one problem: ALERTS (any GPU) and the findings
// alert of KINDS.
std::vector<std::string> problem_rows(const ScenarioRun& run, std::size_t i, const std::set<std::string>& alerts,
                                      const std::set<std::string>& kinds, std::optional<unsigned> gpu = std::nullopt) {
  std::vector<std::string> out;
  for (const auto& a : run.active[i]) {
    if (gpu && a.gpu != gpu) continue;
    const auto kind = a.labels.find("kind");
    if (alerts.count(a.rule) || (a.rule == "GpuDiagnosisFinding" && kind != a.labels.end() && kinds.count(kind->second)))
      out.push_back(a.rule + "@" + std::to_string(a.gpu.value_or(99)) + " " + to_string(a.state));
  }
  return out;
}

TEST(AlertsBuiltinScenarios, StuckCollectiveOnTheWaitingRanksOnly) {
  // The rule alone (as Prometheus runs it); with the diagnosis the job's hang is one row (below).
  auto run = run_scenario("nccl_hang", 700, 2, rules_without_covers());
  for (unsigned g = 0; g < 3; ++g) {
    auto fired = run.first_firing("GpuStuckCollective", g);
    ASSERT_TRUE(fired) << g << "\n" << run.listing();
    auto onset = run.onset(g, *fired, [](const core::DeviceSnapshot& d) {
      return field(d, FieldId::UtilizationGpu) >= 0.99 &&
             field(d, FieldId::PowerDraw) < 0.3 * field(d, FieldId::PowerLimit);
    });
    ASSERT_TRUE(onset);
    EXPECT_NEAR(*fired, *onset + 300, run.step_s) << g;
  }
  EXPECT_FALSE(run.first_firing("GpuStuckCollective", 3u));
  // The diagnosis's hang is one problem: one alert, filed under the dead rank's GPU when it names
  // it (issue 23), whose sentence names the cause.
  EXPECT_EQ(unexpected(run, {{"GpuStuckCollective", 0}, {"GpuStuckCollective", 1}, {"GpuStuckCollective", 2},
                             {"GpuDiagnosisFinding", 0}, {"GpuDiagnosisFinding", 1}, {"GpuDiagnosisFinding", 2},
                             {"GpuDiagnosisFinding", 3}}),
            std::vector<std::string>{}) << run.listing();
  std::map<std::string, int> finding_alerts;  // kind -> Firing events
  for (const auto& e : run.events)
    if (e.kind == EventKind::Firing && e.alert.rule == "GpuDiagnosisFinding") ++finding_alerts[e.alert.labels.at("kind")];
  for (const auto& [kind, count] : finding_alerts) EXPECT_EQ(count, 1) << kind << "\n" << run.listing();
}

TEST(AlertsBuiltinScenarios, NcclHangIsOneRowNamingTheDeadRank) {
  // One row per problem (issue 23): the job's collective_hang finding over GPUs 0-3 is the hang's
  // alert; GpuStuckCollective, which covers that kind, stays quiet on its GPUs.
  auto run = run_scenario("nccl_hang", 700, 2);
  for (unsigned g = 0; g < 4; ++g) EXPECT_FALSE(run.first_firing("GpuStuckCollective", g)) << g << "\n" << run.listing();
  int hang_alerts = 0;
  for (const auto& e : run.events)
    if (e.kind == EventKind::Firing && e.alert.rule == "GpuDiagnosisFinding" && e.alert.labels.at("kind") == "collective_hang") {
      ++hang_alerts;
      EXPECT_EQ(e.alert.labels.at("gpus"), "0,1,2,3");
      EXPECT_NE(e.alert.annotations.at("summary").find("GPU 3"), std::string::npos) << e.alert.annotations.at("summary");
    }
  EXPECT_EQ(hang_alerts, 1) << run.listing();
  // From the hang's first firing alert on, exactly one row is about it, and it fires.
  const std::set<std::string> hang_rules = {"GpuStuckCollective"};
  const std::set<std::string> hang_kinds = {"stuck_kernel", "collective_hang"};
  bool fired = false;
  for (std::size_t i = 0; i < run.active.size(); ++i) {
    const auto rows = problem_rows(run, i, hang_rules, hang_kinds);
    for (const auto& r : rows) fired = fired || r.find("firing") != std::string::npos;
    if (fired) EXPECT_EQ(rows.size(), 1u) << static_cast<double>(i) * run.step_s << " s: " << ::testing::PrintToString(rows);
  }
  EXPECT_TRUE(fired) << run.listing();
}

// The scenario second GPU runs out of memory: its free memory under 1 % of the total (the
// simulator's leak stops 64 MiB short of full), or its leaking process gone (killed by the OOM)
// after AFTER seconds.
std::optional<double> out_of_memory_at(const ScenarioRun& run, unsigned gpu, double after) {
  for (std::size_t i = 0; i < run.snapshots.size(); ++i) {
    const double t = static_cast<double>(i) * run.step_s;
    if (t <= after || gpu >= run.snapshots[i].devices.size()) continue;
    const auto& d = run.snapshots[i].devices[gpu];
    if (field(d, FieldId::MemoryFree) < 0.01 * field(d, FieldId::MemoryTotal) || !has_process(d)) return t;
  }
  return std::nullopt;
}

// The leak alert at the moment GPU runs out of memory (the tick before): firing and critical.
void expect_critical_leak_alert_before_oom(const ScenarioRun& run, unsigned gpu, double leak_start_s) {
  auto oom = out_of_memory_at(run, gpu, leak_start_s);
  ASSERT_TRUE(oom) << "the scenario's GPU " << gpu << " never ran out of memory";
  auto fired = run.first_firing("GpuMemoryLeakPredicted", gpu);
  ASSERT_TRUE(fired) << run.listing();
  EXPECT_LT(*fired, *oom) << run.listing();
  const auto& before = run.active.at(static_cast<std::size_t>(*oom / run.step_s) - 1);
  bool critical = false;
  for (const auto& a : before)
    critical = critical || (a.rule == "GpuMemoryLeakPredicted" && a.gpu == gpu && a.state == AlertState::Firing &&
                            a.severity == Severity::Critical);
  EXPECT_TRUE(critical) << "no firing critical GpuMemoryLeakPredicted on GPU " << gpu << " just before the OOM at "
                        << *oom << " s\n" << run.listing();
  // The critical rule's for: is 1 minute: it fires 1 minute after its condition first held, and
  // that minute is shorter than the time to OOM it predicted then.
  for (const auto& e : run.events) {
    if (e.kind != EventKind::Firing || e.alert.rule != "GpuMemoryLeakPredicted" || e.alert.gpu != gpu) continue;
    if (e.alert.severity != Severity::Critical) continue;
    EXPECT_NEAR(ScenarioRun::seconds(e.at) - ScenarioRun::seconds(e.alert.active_since), 60, run.step_s);
    ASSERT_TRUE(e.alert.value);
    EXPECT_GT(*e.alert.value, 60) << "the predicted time to OOM ($value, seconds)";
    EXPECT_LT(*e.alert.value, 600);
    // The leak finding is active on that GPU: the alert says its sentence and advice (one row per
    // problem, issue 23); without it, the rule's own prediction.
    const auto& findings = run.findings.at(static_cast<std::size_t>(ScenarioRun::seconds(e.at) / run.step_s));
    const diagnose::Finding* leak = nullptr;
    for (const auto& f : findings)
      if (f.active && f.kind == "memory_leak" && f.gpus == std::vector<unsigned>{gpu}) leak = &f;
    if (leak) {
      EXPECT_EQ(e.alert.annotations.at("summary"), "GPU " + std::to_string(gpu) + " on n1: " + leak->summary);
      EXPECT_NE(e.alert.annotations.at("description").find("\ntry: "), std::string::npos);
    } else {
      EXPECT_NE(e.alert.annotations.at("summary").find("will run out of memory in about"), std::string::npos);
    }
  }
}

TEST(AlertsBuiltinScenarios, MemoryLeakPredictedBeforeTheOom) {
  auto run = run_scenario("memory_leak", 800, 2);
  expect_critical_leak_alert_before_oom(run, 0, 60);  // the leak starts at 60 s and fills the GPU in 10 minutes
  EXPECT_EQ(unexpected(run, {{"GpuMemoryLeakPredicted", 0}, {"GpuDiagnosisFinding", 0}, {"GpuMemoryAlmostFull", 0}}),
            std::vector<std::string>{}) << run.listing();
}

TEST(AlertsBuiltinScenarios, DemoLeakIsCriticalBeforeGpu6RunsOutOfMemory) {
  // GPU 6 leaks from 30 s and fills its 80 GB in 4 minutes: the old warning (for: 5m) came after.
  auto run = run_scenario("demo", 300);
  expect_critical_leak_alert_before_oom(run, 6, 30);
  auto oom = out_of_memory_at(run, 6, 30);
  ASSERT_TRUE(oom);
  EXPECT_GE(*oom - *run.first_firing("GpuMemoryLeakPredicted", 6u), 60) << "at least a minute of warning";
}

TEST(AlertsBuiltinScenarios, DemoLeakIsOneRow) {
  // One row per problem (issue 23): while GPU 6 leaks, at most one active row is about the leak
  // (the findings alert, until GpuMemoryLeakPredicted, which covers memory_leak, starts; then
  // that one), and exactly one from the critical prediction's start to the OOM. The leak's
  // findings alert never fires next to it.
  auto run = run_scenario("demo", 300);
  auto oom = out_of_memory_at(run, 6, 30);
  ASSERT_TRUE(oom);
  const std::set<std::string> leak_rules = {"GpuMemoryLeakPredicted"};
  bool critical = false;
  for (std::size_t i = 0; i + 1 < static_cast<std::size_t>(*oom / run.step_s); ++i) {
    const auto rows = problem_rows(run, i, leak_rules, {"memory_leak"}, 6u);
    for (const auto& a : run.active[i])
      critical = critical || (a.rule == "GpuMemoryLeakPredicted" && a.gpu == 6u && a.severity == Severity::Critical);
    EXPECT_LE(rows.size(), 1u) << i << " s: " << ::testing::PrintToString(rows);
    if (critical) EXPECT_EQ(rows.size(), 1u) << i << " s: " << ::testing::PrintToString(rows);
  }
  EXPECT_TRUE(critical) << run.listing();
  for (const auto& e : run.events)
    EXPECT_FALSE(e.kind == EventKind::Firing && e.alert.rule == "GpuDiagnosisFinding" && e.alert.labels.at("kind") == "memory_leak")
        << run.listing();
}

TEST(AlertsBuiltinScenarios, ARestartDuringTheLeakKeepsTheCriticalAlertUntilTheOom) {
  // serve restarts at 200 s, while the critical leak alert fires: the restored alert's windows
  // start empty, and under 2 minutes of samples its prediction is unknown, not false, so it
  // neither resolves nor fires again before the OOM at 270 s.
  auto run = run_scenario("demo", 268);
  const std::size_t restart = 200;
  bool firing_at_restart = false;
  for (const auto& a : run.active[restart])
    firing_at_restart = firing_at_restart || (a.rule == "GpuMemoryLeakPredicted" && a.gpu == 6u && a.state == AlertState::Firing);
  ASSERT_TRUE(firing_at_restart) << run.listing();
  Engine restarted(builtin_rules(), "n1");
  restarted.restore(run.active[restart]);
  for (std::size_t i = restart + 1; i < run.snapshots.size(); ++i) {
    const core::Snapshot& snap = run.snapshots[i];
    TickInput tick;
    tick.now = snap.timestamp;
    tick.gpu_count = snap.device_count;
    tick.findings = run.findings[i];
    tick.sampler_age_s = 0;
    for (const auto& d : snap.devices) tick.gpus.push_back(GpuInput{d.index, &d, 0.0, false, {}, {}});
    for (const auto& e : restarted.evaluate(tick))
      EXPECT_FALSE(e.alert.rule == "GpuMemoryLeakPredicted" && e.alert.gpu == 6u)
          << ScenarioRun::seconds(e.at) << " s: " << to_string(e.kind) << " after the restart";
  }
  bool still = false;
  for (const auto& a : restarted.active())
    still = still || (a.rule == "GpuMemoryLeakPredicted" && a.gpu == 6u && a.state == AlertState::Firing &&
                      a.severity == Severity::Critical);
  EXPECT_TRUE(still);
}

TEST(AlertsBuiltinScenarios, AllocatorCacheGrowingToAPlateauRaisesNoLeakAlert) {
  // fragmentation: the cache takes 45 of the 60 free GB with a 100 s time constant from the
  // first sample on (no history before it), a predicted OOM within minutes at first.
  auto run = run_scenario("fragmentation", 900, 1);
  EXPECT_FALSE(run.first_firing("GpuMemoryLeakPredicted", 0u)) << run.listing();
  for (const auto& tick : run.active)
    for (const auto& a : tick) EXPECT_NE(a.rule, "GpuMemoryLeakPredicted") << "pending or firing\n" << run.listing();
}

TEST(AlertsBuiltinScenarios, GpuLostAtOnceWithItsXid) {
  auto run = run_scenario("gpu_lost", 200);
  auto fired = run.first_firing("GpuLost", 1u);
  ASSERT_TRUE(fired) << run.listing();
  auto onset = run.onset(1, *fired, [](const core::DeviceSnapshot& d) { return d.state == core::DeviceState::Lost; });
  ASSERT_TRUE(onset);
  EXPECT_NEAR(*fired, *onset, run.step_s);
  ASSERT_TRUE(run.first_firing("GpuXidCritical", 1u));
  for (const auto& e : run.events)
    if (e.alert.rule == "GpuXidCritical") EXPECT_EQ(e.alert.labels.at("xid"), "79");
  EXPECT_EQ(unexpected(run, {{"GpuLost", 1}, {"GpuXidCritical", 1}, {"GpuDiagnosisFinding", 1}}), std::vector<std::string>{})
      << run.listing();
}

TEST(AlertsBuiltinScenarios, EccErrorsHealthRules) {
  auto run = run_scenario("ecc_errors", 400, 2);
  for (const char* alert : {"GpuUncorrectableEccErrors", "GpuXidCritical", "GpuRecoveryActionRequired"})
    EXPECT_TRUE(run.first_firing(alert, 0u)) << alert << "\n" << run.listing();
  auto fired = run.first_firing("GpuRecoveryActionRequired", 0u);
  auto onset = run.onset(0, *fired, [](const core::DeviceSnapshot& d) { return field(d, FieldId::GpuRecoveryAction) > 0; });
  ASSERT_TRUE(onset);
  EXPECT_NEAR(*fired, *onset, run.step_s);
}

TEST(AlertsBuiltinScenarios, DemoNamesGpu3AndGpu6Only) {
  auto run = run_scenario("demo", 600, 2);
  bool thermal3 = false, leak6 = false;
  for (const auto& e : run.events) {
    if (e.kind != EventKind::Firing) continue;
    // The leak's row is GpuMemoryLeakPredicted, which covers memory_leak, in the finding's words.
    if (e.alert.gpu == 6u && e.alert.rule == "GpuMemoryLeakPredicted")
      leak6 = leak6 || e.alert.annotations.at("summary").find("memory leak") != std::string::npos;
    if (e.alert.rule != "GpuDiagnosisFinding") continue;
    if (e.alert.gpu == 3u && e.alert.labels.at("kind") == "thermal_throttle") thermal3 = true;
  }
  EXPECT_TRUE(thermal3) << run.listing();
  EXPECT_TRUE(leak6) << run.listing();
  std::set<std::pair<std::string, int>> allowed;
  for (const char* a : {"GpuDiagnosisFinding", "GpuMemoryLeakPredicted", "GpuTemperatureHigh", "GpuThermalThrottling",
                        "GpuXidError", "GpuXidCritical", "GpuMemoryAlmostFull"})
    for (int g : {3, 6}) allowed.insert({a, g});
  EXPECT_EQ(unexpected(run, allowed), std::vector<std::string>{}) << run.listing();
}

TEST(AlertsBuiltinScenarios, HealthyScenariosRaiseNothingAtWarning) {
  for (const char* name : {"training", "idle", "memory_bound", "fragmentation", "consumer_card", "old_driver", "mig",
                           "sick_gpu"}) {
    auto run = run_scenario(name, 900, 3);
    std::set<std::pair<std::string, int>> allowed;
    // sick_gpu and the like may carry diagnosis findings; the threshold rules must stay quiet.
    for (int g = 0; g < 8; ++g) allowed.insert({"GpuDiagnosisFinding", g});
    EXPECT_EQ(unexpected(run, allowed), std::vector<std::string>{}) << name << "\n" << run.listing();
  }
}

}  // namespace
}  // namespace gpuwatch::alerts::testing
