// The built-in rules on the simulator's scenarios: which alerts fire, on which GPU, and when
// relative to the rule's for: deadline (the onset is read from the raw samples, not from the
// engine), within one tick.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
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

TEST(AlertsBuiltinScenarios, StuckCollectiveOnTheWaitingRanksOnly) {
  auto run = run_scenario("nccl_hang", 700, 2);
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
  EXPECT_EQ(unexpected(run, {{"GpuStuckCollective", 0}, {"GpuStuckCollective", 1}, {"GpuStuckCollective", 2},
                             {"GpuDiagnosisFinding", 0}, {"GpuDiagnosisFinding", 1}, {"GpuDiagnosisFinding", 2}}),
            std::vector<std::string>{}) << run.listing();
}

TEST(AlertsBuiltinScenarios, MemoryLeakPredictedBeforeTheOom) {
  auto run = run_scenario("memory_leak", 800, 2);
  auto fired = run.first_firing("GpuMemoryLeakPredicted", 0u);
  ASSERT_TRUE(fired) << run.listing();
  auto full = run.onset(0, 800, [](const core::DeviceSnapshot& d) {
    return field(d, FieldId::MemoryUsed) >= 0.98 * field(d, FieldId::MemoryTotal);
  });
  EXPECT_GT(*fired, 60 + 300);  // the leak starts at 60 s; for: 5m
  if (full) EXPECT_LT(*fired, *full) << run.listing();
  EXPECT_EQ(unexpected(run, {{"GpuMemoryLeakPredicted", 0}, {"GpuDiagnosisFinding", 0}, {"GpuMemoryAlmostFull", 0}}),
            std::vector<std::string>{}) << run.listing();
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
    if (e.kind != EventKind::Firing || e.alert.rule != "GpuDiagnosisFinding") continue;
    if (e.alert.gpu == 3u && e.alert.labels.at("kind") == "thermal_throttle") thermal3 = true;
    if (e.alert.gpu == 6u && e.alert.labels.at("kind") == "memory_leak") leak6 = true;
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
