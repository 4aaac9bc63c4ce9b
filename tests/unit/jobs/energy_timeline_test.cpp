#include "jobs/energy_timeline.hpp"

#include <gtest/gtest.h>

#include "jobs/device_stats.hpp"  // kMaxIntegrationGapS

namespace gpuwatch::jobs {
namespace energy_timeline_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

TimePoint at_s(double s) { return TimePoint(std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000))); }

EnergyPoint point(double t, std::optional<double> counter, std::optional<double> power) {
  EnergyPoint p;
  p.at = at_s(t);
  p.counter_j = counter;
  p.power_w = power;
  return p;
}

TEST(EnergyTimeline, TheCounterWinsOverPowerWhenReadTwice) {
  EnergyTimeline t;
  add_point(t, point(0, 1000, 100));
  add_point(t, point(1, 1150, 100));  // the counter says 150 J, power would say 100 J
  add_point(t, point(2, 1300, 100));
  auto e = cumulative_energy(t);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->source, EnergySource::Counter);
  EXPECT_DOUBLE_EQ(e->total(), 300);
  EXPECT_STREQ(to_string(e->source), "counter");
}

TEST(EnergyTimeline, PowerIsIntegratedByTrapezoidsWithoutACounterAndLabelledEstimated) {
  EnergyTimeline t;
  add_point(t, point(0, std::nullopt, 100));
  add_point(t, point(2, std::nullopt, 200));  // (100+200)/2*2 = 300
  add_point(t, point(3, std::nullopt, 200));  // +200
  auto e = cumulative_energy(t);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->source, EnergySource::Estimated);
  EXPECT_STREQ(to_string(e->source), "estimated");
  EXPECT_DOUBLE_EQ(e->total(), 500);
  EXPECT_DOUBLE_EQ(*e->at_time(at_s(1)), 150);  // linear between points
}

TEST(EnergyTimeline, ASharedStretchCountsItsShareOfTheCounterAndOfPower) {
  EnergyTimeline counter;
  add_point(counter, point(0, 1000, 100));
  add_point(counter, point(1, 1100, 100));  // alone: 100 J
  auto shared = point(2, 1300, 100);        // 200 J while two owners held the GPU: 100 J counted
  shared.share = 0.5;
  add_point(counter, shared);
  auto c = cumulative_energy(counter);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->total(), 200);
  EXPECT_DOUBLE_EQ(*c->at_time(at_s(1.5)), 150);

  EnergyTimeline power;
  add_point(power, point(0, std::nullopt, 300));
  auto third = point(2, std::nullopt, 300);  // 600 J in the stretch, three owners: 200 J
  third.share = 1.0 / 3;
  add_point(power, third);
  auto p = cumulative_energy(power);
  ASSERT_TRUE(p);
  EXPECT_NEAR(p->total(), 200, 1e-9);
}

TEST(EnergyTimeline, AGapLongerThanTheLimitIsNotIntegrated) {
  EnergyTimeline t;
  add_point(t, point(0, std::nullopt, 100));
  add_point(t, point(1, std::nullopt, 100));    // 100 J
  add_point(t, point(100, std::nullopt, 100));  // a 99 s gap: nothing
  add_point(t, point(101, std::nullopt, 100));  // 100 J
  auto e = cumulative_energy(t);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->total(), 200);
}

TEST(EnergyTimeline, ACounterThatWentBackFallsBackToPower) {
  EnergyTimeline t;
  add_point(t, point(0, 5000, 100));
  add_point(t, point(1, 10, 100));  // driver reloaded
  add_point(t, point(2, 110, 100));
  auto e = cumulative_energy(t);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->source, EnergySource::Estimated);
  EXPECT_DOUBLE_EQ(e->total(), 200);
}

TEST(EnergyTimeline, ACounterReadingMissingInTheMiddleIsSkippedNotZero) {
  EnergyTimeline t;
  add_point(t, point(0, 1000, 100));
  add_point(t, point(1, std::nullopt, 100));
  add_point(t, point(2, 1400, 100));
  auto e = cumulative_energy(t);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->source, EnergySource::Counter);
  EXPECT_DOUBLE_EQ(e->total(), 400);
  EXPECT_DOUBLE_EQ(*e->at_time(at_s(1)), 200);
}

TEST(EnergyTimeline, NoEnergyWithoutTwoReadings) {
  EnergyTimeline t;
  EXPECT_EQ(cumulative_energy(t), std::nullopt);
  add_point(t, point(0, 1000, std::nullopt));
  EXPECT_EQ(cumulative_energy(t), std::nullopt);
}

TEST(EnergyTimeline, OutsideTheSampledRangeIsAbsent) {
  EnergyTimeline t;
  add_point(t, point(10, 0, std::nullopt));
  add_point(t, point(20, 100, std::nullopt));
  auto e = cumulative_energy(t);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->at_time(at_s(9)), std::nullopt);
  EXPECT_EQ(e->at_time(at_s(21)), std::nullopt);
  EXPECT_DOUBLE_EQ(*e->at_time(at_s(20)), 100);
}

TEST(EnergyTimeline, AFullTimelineHalvesItsResolutionAndKeepsTheWholeRange) {
  EnergyTimeline t;
  for (std::size_t i = 0; i <= kMaxTimelinePoints; ++i)
    add_point(t, point(static_cast<double>(i), static_cast<double>(i) * 10, std::nullopt));
  EXPECT_EQ(t.halvings, 1u);
  EXPECT_LE(t.points.size(), kMaxTimelinePoints / 2 + 1);
  auto e = cumulative_energy(t);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->total(), static_cast<double>(kMaxTimelinePoints) * 10);
}

TEST(EnergyTimeline, AHalvedTimelineStillIntegratesPowerSampledJustUnderTheGapLimit) {
  EnergyTimeline t;
  const double step = kMaxIntegrationGapS * 0.75;  // halved once: points 1.5x the gap limit apart
  for (std::size_t i = 0; i <= kMaxTimelinePoints; ++i) add_point(t, point(static_cast<double>(i) * step, std::nullopt, 100));
  ASSERT_EQ(t.halvings, 1u);
  auto e = cumulative_energy(t);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->total(), 100 * step * static_cast<double>(kMaxTimelinePoints), 1e-6 * e->total());
}

TEST(EnergyTimeline, ASnapshotGivesItsStateAndOnlyThrottleReasonsCountAsThrottled) {
  core::DeviceSnapshot d;
  d.get(FieldId::EnergyTotal) = FieldReading::of(12.5);
  d.get(FieldId::PowerDraw) = FieldReading::of(300.0);
  d.get(FieldId::UtilizationGpu) = FieldReading::of(0.0);
  d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{2} << 30);
  d.get(FieldId::ClocksEventReasonsSwPowerCap) = FieldReading::of(0.0);
  EnergyTimeline t;
  add_point(t, d, at_s(1));
  ASSERT_EQ(t.points.size(), 1u);
  EXPECT_EQ(t.points[0].counter_j, 12.5);
  EXPECT_EQ(t.points[0].memory_used_bytes, std::uint64_t{2} << 30);
  EXPECT_FALSE(t.points[0].throttled);
  d.get(FieldId::ClocksEventReasonsSwPowerCap) = FieldReading::of(1.0);
  add_point(t, d, at_s(2));
  EXPECT_TRUE(t.points[1].throttled);
}

}  // namespace energy_timeline_test
}  // namespace gpuwatch::jobs
