// The driver's sample periods (issue 24): utilization is the busy share of the model's last
// whole sample period, never the load at one instant; power samples are instant readings.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim {
namespace simulation_periods_test {

Simulation make(const std::string& model) {
  auto sc = parse_scenario("gpus:\n  - model: " + model +
                               "\n    noise: 0\n    phases: [{kind: dataloader_starvation, duration: 1h, busy: 0.7, "
                               "idle: 0.3, ramp: 0}]\n",
                           "test.yaml", "");
  EXPECT_TRUE(sc) << (sc ? "" : sc.error().message);
  return Simulation(std::move(*sc), {});
}

double utilization_at(const Simulation& sim, double t) {
  DynamicSample s;
  sim.evaluate(0, t, s);
  return s.num[key_index(Key::UtilizationGpu)];
}

}  // namespace simulation_periods_test

using namespace simulation_periods_test;

TEST(SimulationPeriods, DataCenterBoardsSampleEverySixthOfASecondGeForceEverySecond) {
  EXPECT_DOUBLE_EQ(make("h100").sample_period_s(0), 1.0 / 6);
  EXPECT_DOUBLE_EQ(make("a100").sample_period_s(0), 1.0 / 6);
  EXPECT_DOUBLE_EQ(make("rtx4090").sample_period_s(0), 1.0);
}

TEST(SimulationPeriods, EachSampleIsTheBusyShareOfItsPeriod) {
  auto h100 = make("h100");
  // Periods of 1/6 s: [4/6, 5/6) holds 0.7 - 4/6 busy (20 %); [5/6, 1) is idle; [0, 1/6) busy.
  EXPECT_NEAR(h100.period_sample(0, 5).util, 20, 2);  // to within 1/64 of a period at each edge
  EXPECT_EQ(h100.period_sample(0, 6).util, 0);
  EXPECT_EQ(h100.period_sample(0, 7).util, 100);
  // utilization.gpu at t is the newest whole period's: t = 0.95 reads the period [4/6, 5/6).
  EXPECT_EQ(h100.period_index(0, 0.95), 5);
  EXPECT_EQ(utilization_at(h100, 0.95), h100.period_sample(0, 5).util);
  auto rtx = make("rtx4090");  // 1 s periods: every whole period of the 1 s cycle is 70 % busy
  for (std::int64_t k = 1; k < 20; ++k) EXPECT_NEAR(rtx.period_sample(0, k).util, 70, 2) << k;
}

TEST(SimulationPeriods, TheMeanOfTheSamplesIsTheDutyCycle) {
  auto h100 = make("h100");
  double sum = 0;
  for (std::int64_t k = 1; k <= 600; ++k) sum += h100.period_sample(0, k).util;
  EXPECT_NEAR(sum / 600, 70, 1);
}

TEST(SimulationPeriods, TheClassicSawRampsOverTheBusyPart) {
  auto sc = parse_scenario("gpus:\n  - model: h100\n    noise: 0\n    phases: [{kind: dataloader_starvation, duration: 1h}]\n",
                           "test.yaml", "");
  ASSERT_TRUE(sc);
  Simulation saw(std::move(*sc), {});
  EXPECT_NEAR(saw.period_sample(0, 6 * 4).util, 80, 3);  // 5 s ramp: 4 s in, 80 %
  EXPECT_EQ(saw.period_sample(0, 6 * 6).util, 0);        // the 3 s gap
}

}  // namespace gpuwatch::sim
