#include "jobs/energy_report.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::jobs {
namespace energy_report_test {  // this test file's helpers (unity builds: no clash with another file's)

TimePoint at_s(double s) { return TimePoint(std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000))); }

// A GPU at a steady 100 W from 0 s to 10 s (counter), busy, 1 GiB+ used.
EnergyTimeline steady(double watts, bool counter, double until = 10) {
  EnergyTimeline t;
  for (double s = 0; s <= until; s += 1) {
    EnergyPoint p;
    p.at = at_s(s);
    if (counter) p.counter_j = 5000 + watts * s;
    p.power_w = watts;
    p.utilization = 0.9;
    p.memory_used_bytes = std::uint64_t{4} << 30;
    add_point(t, p);
  }
  return t;
}

StepRow step(std::int64_t i, double end_s, double duration_s, std::optional<std::int64_t> samples = std::nullopt) {
  StepRow r;
  r.step = i;
  r.time_s = end_s;
  r.data_wait_s = duration_s / 4;
  r.compute_s = duration_s * 3 / 4;
  r.samples = samples;
  return r;
}

int hour_zero(TimePoint) { return 0; }

TEST(EnergyReport, PerGpuAndJobEnergyWithTheirSources) {
  auto a = steady(100, true), b = steady(50, false);
  auto r = energy_report({{0, &a}, {1, &b}}, {}, {}, {}, hour_zero, 1.0);
  ASSERT_TRUE(r.total_j);
  EXPECT_DOUBLE_EQ(*r.total_j, 1500);
  ASSERT_EQ(r.gpus.size(), 2u);
  EXPECT_EQ(r.gpus[0].source, EnergySource::Counter);
  EXPECT_EQ(r.gpus[1].source, EnergySource::Estimated);
  EXPECT_EQ(r.source, "mixed");
  EXPECT_DOUBLE_EQ(r.waste.total_j, 1500);
}

TEST(EnergyReport, NoEnergyIsAbsentAndNoCostIsInvented) {
  EnergyTimeline empty;
  EnergyRates rates;
  rates.price = Rate{0.12, {}, "--price-per-kwh"};
  auto r = energy_report({{0, &empty}}, {}, {}, rates, hour_zero, 1.0);
  EXPECT_EQ(r.total_j, std::nullopt);
  EXPECT_EQ(r.cost.cost, std::nullopt);
  EXPECT_TRUE(energy_report_json(r).is_null());
  EXPECT_EQ(energy_report_text(r), "");
}

TEST(EnergyReport, PerStepEnergyIsTheJobsEnergyOverEachStepWithMedianAndP10P90) {
  auto a = steady(100, true), b = steady(100, false);
  std::vector<StepRow> steps;
  // Steps of 1, 2, ... 9 tenths of a second ending at 1.5, 2.5, ... (all GPUs: 200 W).
  for (int i = 1; i <= 9; ++i) steps.push_back(step(i, 0.5 + i, i / 10.0, 4));
  steps.push_back(step(10, 30, 1));  // after the sampled range
  auto r = energy_report({{0, &a}, {1, &b}}, steps, {}, {}, hour_zero, 1.0);
  const auto& s = r.steps;
  EXPECT_EQ(s.measured, 9u);
  EXPECT_EQ(s.outside, 1u);
  ASSERT_TRUE(s.joules_per_step);
  EXPECT_NEAR(s.joules_per_step->median, 100, 1e-6);  // 0.5 s x 200 W
  EXPECT_NEAR(s.joules_per_step->p10, 20, 1e-6);
  EXPECT_NEAR(s.joules_per_step->p90, 180, 1e-6);
  EXPECT_NEAR(s.joules_per_step->mean, 100, 1e-6);
  ASSERT_TRUE(s.joules_per_sample);
  EXPECT_NEAR(s.joules_per_sample->median, 25, 1e-6);
  EXPECT_EQ(s.with_samples, 9u);
  EXPECT_EQ(s.shorter_than_counter, 0u);  // 0.1 s is not shorter than 100 ms
  EXPECT_EQ(s.shorter_than_sampling, 9u);
}

TEST(EnergyReport, StepsShorterThanTheCounterPeriodAreFlagged) {
  auto a = steady(100, true);
  auto r = energy_report({{0, &a}}, {step(1, 2, 0.05), step(2, 3, 0.099), step(3, 4, 0.5)}, {}, {}, hour_zero, 0.01);
  EXPECT_EQ(r.steps.shorter_than_counter, 2u);
  EXPECT_EQ(r.steps.shorter_than_sampling, 0u);
  EXPECT_NE(energy_report_text(r).find("2 steps shorter than the energy counter's update period (100 ms)"), std::string::npos);
}

TEST(EnergyReport, WasteSplitClassifiesEachIntervalByTheSampleThatClosesIt) {
  EnergyTimeline t;
  auto add = [&](double s, double util, std::uint64_t mem, bool throttled) {
    EnergyPoint p;
    p.at = at_s(s);
    p.counter_j = 100 * s;
    p.utilization = util;
    p.memory_used_bytes = mem;
    p.throttled = throttled;
    add_point(t, p);
  };
  const std::uint64_t gib = std::uint64_t{1} << 30;
  add(0, 0.0, 4 * gib, false);
  add(1, 0.0, 4 * gib, false);         // idle, memory held: 100 J
  add(2, 0.0, gib / 2, false);         // idle, little memory: not waste
  add(3, 0.003, 4 * gib, false);       // 0 % as NVML rounds it: idle
  add(4, 0.9, 4 * gib, true);          // throttled
  add(5, 0.9, 4 * gib, false);
  add(6, 0.9, 4 * gib, false);
  diagnose::Finding warning;
  warning.kind = "thermal_throttle";
  warning.severity = diagnose::Severity::Warning;
  warning.gpus = {3};
  warning.start = at_s(4);
  warning.end = at_s(6);
  diagnose::Finding info = warning;
  info.severity = diagnose::Severity::Info;
  info.start = at_s(0);
  diagnose::Finding elsewhere = warning;
  elsewhere.gpus = {4};
  elsewhere.start = at_s(0);
  auto r = energy_report({{3, &t}}, {}, {warning, info, elsewhere}, {}, hour_zero, 1.0);
  EXPECT_DOUBLE_EQ(r.waste.total_j, 600);
  EXPECT_DOUBLE_EQ(r.waste.idle_memory_held_j, 200);
  EXPECT_DOUBLE_EQ(r.waste.throttled_j, 100);
  EXPECT_DOUBLE_EQ(r.waste.finding_active_j, 200);  // 4..6 s, warning only, this GPU only
  auto j = energy_report_json(r);
  EXPECT_NEAR(j["waste"]["idle_memory_held_share"].get<double>(), 200.0 / 600, 1e-12);
  EXPECT_NE(energy_report_text(r).find("33.3 % idle with memory held, 16.7 % throttled, 33.3 % while a warning"),
            std::string::npos);
}

TEST(EnergyReport, AGroupedFindingCountsOnlyItsWarningEpisodes) {
  auto a = steady(100, true);
  diagnose::Finding f;
  f.severity = diagnose::Severity::Warning;
  f.gpus = {0};
  f.start = at_s(0);
  f.end = at_s(10);
  f.episodes = {{at_s(0), at_s(2), diagnose::Severity::Info, {}, {}}, {at_s(6), at_s(8), diagnose::Severity::Warning, {}, {}}};
  auto r = energy_report({{0, &a}}, {}, {f}, {}, hour_zero, 1.0);
  EXPECT_DOUBLE_EQ(r.waste.finding_active_j, 200);  // intervals 6-7 and 7-8 (midpoints 6.5, 7.5)
}

TEST(EnergyReport, CostAndCarbonFromFixedRatesSaySourcesAndUsePue) {
  EnergyRates rates;
  rates.price = Rate{0.20, {}, "--price-per-kwh"};
  rates.pue = Rate{1.5, {}, "--pue"};
  rates.carbon = Rate{400, {}, "--carbon-intensity"};
  auto c = cost_and_carbon({{14, 3.6e6}}, rates);  // 1 kWh at 14:00
  ASSERT_TRUE(c.cost && c.co2_g);
  EXPECT_NEAR(*c.cost, 0.30, 1e-12);
  EXPECT_NEAR(*c.co2_g, 600, 1e-9);
  EXPECT_TRUE(c.hints.empty());
  EXPECT_EQ(c.sources, (std::vector<std::string>{"price 0.2 USD/kWh from --price-per-kwh", "PUE 1.5 from --pue",
                                                 "grid 400 gCO2/kWh from --carbon-intensity"}));
}

TEST(EnergyReport, TablesByHourChargeEachHourAtItsRateAndNameTheHours) {
  EnergyRates rates;
  rates.carbon = Rate{std::nullopt, {{0, 100}, {14, 300}}, "table grid.csv"};
  auto c = cost_and_carbon({{13, 3.6e6}, {14, 7.2e6}}, rates);
  ASSERT_TRUE(c.co2_g);
  EXPECT_NEAR(*c.co2_g, 100 + 600, 1e-9);
  EXPECT_EQ(c.cost, std::nullopt);
  ASSERT_EQ(c.sources.size(), 2u);
  EXPECT_EQ(c.sources[0], "PUE 1 (not configured: the GPUs' own energy, no facility overhead)");
  EXPECT_EQ(c.sources[1], "grid from table grid.csv by hour: hour 13 100 gCO2/kWh, hour 14 300 gCO2/kWh");
  ASSERT_EQ(c.hints.size(), 1u);
  EXPECT_NE(c.hints[0].find("--price-per-kwh"), std::string::npos);
}

TEST(EnergyReport, WithoutRatesCostAndCarbonAreOmittedWithAHint) {
  auto c = cost_and_carbon({{0, 1e6}}, {});
  EXPECT_EQ(c.cost, std::nullopt);
  EXPECT_EQ(c.co2_g, std::nullopt);
  EXPECT_TRUE(c.sources.empty());
  EXPECT_EQ(c.hints.size(), 2u);
}

TEST(EnergyReport, EnergyIsSplitByTheHourOfEachInterval) {
  auto a = steady(100, true);
  EnergyRates rates;
  rates.price = Rate{std::nullopt, {{0, 1.0}, {5, 2.0}}, "table p.csv"};
  // Seconds 0-5 are "hour 0", the rest "hour 5": 500 J at 1.0, 500 J at 2.0 per kWh.
  auto r = energy_report({{0, &a}}, {}, {}, rates, [](TimePoint t) { return t < at_s(5) ? 0 : 5; }, 1.0);
  ASSERT_TRUE(r.cost.cost);
  EXPECT_NEAR(*r.cost.cost, (500 * 1.0 + 500 * 2.0) / 3.6e6, 1e-15);
}

TEST(EnergyReport, SpreadIsNearestRank) {
  auto s = spread_of({5, 1, 4, 2, 3});
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->median, 3);
  EXPECT_DOUBLE_EQ(s->p10, 1);
  EXPECT_DOUBLE_EQ(s->p90, 5);
  EXPECT_EQ(spread_of({}), std::nullopt);
}

}  // namespace energy_report_test
}  // namespace gpuwatch::jobs
