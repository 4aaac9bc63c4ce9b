// The built-in rules that no simulated scenario reaches in a short run, on hand-made ticks:
// the allocator plateau (info) vs growing memory (warning), the idle allocation, data that
// stops (stale GPU, sampler stopped, driver gone).
#include <gtest/gtest.h>

#include "alerts/builtin_rules.hpp"
#include "alerts/engine.hpp"

namespace gpuwatch::alerts {
namespace builtin_rules_test {  // this test file's helpers (unity builds: no clash with another file's)

TimePoint at(double s) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::duration<double>(1.79e9 + s)));
}
double seconds(TimePoint t) { return std::chrono::duration<double>(t - at(0)).count(); }

struct Gpu {
  double used = 10e9, total = 80e9, util = 0.9, power = 500, limit = 700;
  bool process = true, stale = false;
};

core::DeviceSnapshot device(const Gpu& g) {
  core::DeviceSnapshot d;
  d.get(core::FieldId::Uuid) = core::FieldReading::of(std::string("GPU-x"));
  d.get(core::FieldId::MemoryUsed) = core::FieldReading::of(g.used);
  d.get(core::FieldId::MemoryTotal) = core::FieldReading::of(g.total);
  d.get(core::FieldId::MemoryFree) = core::FieldReading::of(g.total - g.used);
  d.get(core::FieldId::UtilizationGpu) = core::FieldReading::of(g.util);
  d.get(core::FieldId::PowerDraw) = core::FieldReading::of(g.power);
  d.get(core::FieldId::PowerLimit) = core::FieldReading::of(g.limit);
  d.get(core::FieldId::TemperatureGpu) = core::FieldReading::of(60.0);
  d.processes_status = core::FieldStatus::Ok;
  if (g.process) d.processes.push_back(core::ProcessSample{1, "python", 1, core::ProcessType::Compute, {}, {}, {}, {}, {}, {}});
  return d;
}

// Ticks every 10 s from FROM to TO with GPU values from F(t); the Firing events.
std::vector<AlertEvent> run(Engine& e, double from, double to, const std::function<Gpu(double)>& f,
                            std::optional<unsigned> count = 1u, std::optional<double> sampler_age = 1.0) {
  std::vector<AlertEvent> out;
  for (double t = from; t <= to; t += 10) {
    Gpu g = f(t);
    core::DeviceSnapshot d = device(g);
    TickInput tick;
    tick.now = at(t);
    tick.gpu_count = count;
    tick.sampler_age_s = sampler_age;
    if (count) tick.gpus.push_back(GpuInput{0, &d, 0.5, g.stale, {"python"}, {}});
    for (auto& ev : e.evaluate(tick))
      if (ev.kind == EventKind::Firing) out.push_back(std::move(ev));
  }
  return out;
}

TEST(AlertsBuiltinRules, FullMemoryIsInfoOnAPlateauAndWarningWhileItGrows) {
  Engine plateau(builtin_rules(), "n1");
  auto ev = run(plateau, 0, 900, [](double) { return Gpu{.used = 76e9}; });
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.rule, "GpuMemoryAlmostFull");
  EXPECT_EQ(ev[0].alert.severity, Severity::Info);
  EXPECT_EQ(ev[0].alert.annotations.at("summary"), "GPU 0 on n1 has 5% memory free (used memory flat)");
  EXPECT_NEAR(seconds(ev[0].at), 300 + 10, 10);  // for: 5m (the trend needs a second sample)

  Engine growing(builtin_rules(), "n1");
  // 72 GB growing by 10 MiB/min (under the leak rule's one-hour horizon: the total is far).
  ev = run(growing, 0, 900, [](double t) { return Gpu{.used = 72.5e9 + t / 60 * 10 * 1048576.0}; });
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.rule, "GpuMemoryAlmostFull");
  EXPECT_EQ(ev[0].alert.severity, Severity::Warning);
  EXPECT_NE(ev[0].alert.fingerprint(), "");
}

TEST(AlertsBuiltinRules, IdleAllocationNeverBusy) {
  Engine e(builtin_rules(), "n1");
  auto ev = run(e, 0, 3700, [](double) { return Gpu{.util = 0, .power = 80}; });
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.rule, "GpuIdleAllocation");
  EXPECT_EQ(ev[0].alert.severity, Severity::Info);
  EXPECT_NEAR(seconds(ev[0].at), 1800, 10);
  // Without a process there is nothing to report.
  Engine none(builtin_rules(), "n1");
  EXPECT_TRUE(run(none, 0, 3700, [](double) { return Gpu{.util = 0, .power = 80, .process = false}; }).empty());
}

TEST(AlertsBuiltinRules, DataThatStops) {
  Engine stale(builtin_rules(), "n1");
  auto ev = run(stale, 0, 300, [](double t) { return Gpu{.stale = t >= 60}; });
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.rule, "GpuStale");
  EXPECT_NEAR(seconds(ev[0].at), 60 + 120, 10);

  Engine sampler(builtin_rules(), "n1");
  ev = run(sampler, 0, 100, [](double) { return Gpu{}; }, 1u, 130.0);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.rule, "GpuwatchSamplerStopped");
  EXPECT_FALSE(ev[0].alert.gpu);
  EXPECT_EQ(ev[0].alert.annotations.at("summary"), "n1: gpuwatch has had no new sample for 2m 10s");

  Engine driver(builtin_rules(), "n1");
  ev = run(driver, 0, 100, [](double) { return Gpu{}; }, std::nullopt);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].alert.rule, "GpuDriverUnavailable");
  EXPECT_NEAR(seconds(ev[0].at), 60, 10);
}

}  // namespace builtin_rules_test
}  // namespace gpuwatch::alerts
