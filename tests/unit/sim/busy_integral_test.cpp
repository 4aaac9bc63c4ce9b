// The busy-time counter behind Level Zero's engine activity (and any other busy counter): the
// integral of utilization, so that two reads give the average utilization between them; it never
// goes back as time grows, and starts again when time goes back.
#include <gtest/gtest.h>

#include "sim/engine/busy_integral.hpp"
#include "sim/engine/scenario_loader.hpp"

namespace gpuwatch::sim {
namespace busy_integral_test {  // this test file's helpers (unity builds: no clash with another file's)

Simulation make_sim(const std::string& yaml) {
  auto sc = parse_scenario(yaml, "test.yaml", "");
  EXPECT_TRUE(sc) << (sc ? "" : sc.error().message);
  return Simulation(std::move(*sc), {});
}

const char* kBusyThenIdle =
    "gpus:\n"
    "  - {model: h100, phases: [{kind: training, duration: 60s}, {kind: idle, duration: 10m}]}\n"
    "  - {model: h100, phases: [{kind: idle, duration: 10m}]}\n";

TEST(BusyIntegral, TwoReadsGiveTheAverageUtilizationBetweenThem) {
  auto sim = make_sim(kBusyThenIdle);
  BusyIntegral busy(sim);
  const double train = sim.load(0, 30).util / 100, idle = sim.load(0, 300).util / 100;
  ASSERT_GT(train, 0.5);
  EXPECT_NEAR(busy.busy_seconds(0, 40) - busy.busy_seconds(0, 10), 30 * train, 1e-6);
  EXPECT_NEAR(busy.busy_seconds(0, 90) - busy.busy_seconds(0, 30), 30 * train + 30 * idle, 0.3);
  EXPECT_NEAR(busy.busy_seconds(1, 500) - busy.busy_seconds(1, 100), 400 * sim.load(1, 200).util / 100, 0.3);
  EXPECT_EQ(busy.busy_seconds(0, 0), 0);
  EXPECT_EQ(busy.busy_seconds(0, -5), 0);
}

TEST(BusyIntegral, NeverGoesBackAsTimeGrowsAndRestartsWhenTimeGoesBack) {
  auto sim = make_sim(kBusyThenIdle);
  BusyIntegral busy(sim);
  double last = 0;
  for (double t = 0; t < 120; t += 0.07) {
    const double b = busy.busy_seconds(0, t);
    EXPECT_GE(b, last) << "t=" << t;
    EXPECT_LE(b, t + 1e-9);
    last = b;
  }
  const double at_100 = busy.busy_seconds(0, 100);
  EXPECT_NEAR(busy.busy_seconds(0, 20), BusyIntegral(sim).busy_seconds(0, 20), 1e-9);  // back in time
  EXPECT_NEAR(busy.busy_seconds(0, 100), at_100, 1e-9);
}

}  // namespace busy_integral_test
}  // namespace gpuwatch::sim
