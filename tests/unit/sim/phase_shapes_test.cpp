// The pathological phases' shape parameters (issue 10): parsed with their defaults, validated
// with errors that name the key, and visible in the evaluated values. Plus the nccl_hang phase.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/engine/gpm_model.hpp"
#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim {
namespace phase_shapes_test {  // this test file's helpers (unity builds: no clash with another file's)

core::Result<Scenario> parse(const std::string& yaml) { return parse_scenario(yaml, "test.yaml", ""); }

Simulation make(const std::string& phases, const std::string& model = "h100") {
  auto sc = parse("gpus:\n  - model: " + model + "\n    phases: " + phases +
                  "\n    loop: false\n    processes: [{command: python a.py, memory: 10000}]\n");
  EXPECT_TRUE(sc) << (sc ? "" : sc.error().message);
  PidSources pids;
  pids.standins[{0, 0}] = 77;
  return Simulation(std::move(*sc), pids);
}

DynamicSample at(const Simulation& sim, double t) {
  DynamicSample s;
  sim.evaluate(0, t, s);
  return s;
}
double util(const Simulation& sim, double t) { return at(sim, t).num[key_index(Key::UtilizationGpu)]; }

TEST(SimPhaseShapes, DefaultsAreTheClassicShapes) {
  auto sc = parse("gpus:\n  - model: h100\n    phases: [{kind: dataloader_starvation, duration: 60}]\n");
  ASSERT_TRUE(sc);
  const Phase& ph = sc->gpus[0].phases[0];
  EXPECT_EQ(ph.busy_s, 5);
  EXPECT_EQ(ph.idle_s, 3);
  EXPECT_EQ(ph.sm_share, 0.30);
  EXPECT_EQ(ph.leak_mib_per_s, 0);
  EXPECT_EQ(ph.peak_temp_c, 0);
  EXPECT_EQ(ph.clock_ratio, 0.78);
}

TEST(SimPhaseShapes, ParametersAreValidatedWithTheirKey) {
  auto wrong_kind = parse("gpus:\n  - model: h100\n    phases: [{kind: training, duration: 60, sm_share: 0.2}]\n");
  ASSERT_FALSE(wrong_kind);
  EXPECT_NE(wrong_kind.error().message.find("test.yaml:3: key 'sm_share': applies to small_kernels phases only"),
            std::string::npos) << wrong_kind.error().message;
  auto out_of_range = parse("gpus:\n  - model: h100\n    phases: [{kind: small_kernels, duration: 60, sm_share: 1.5}]\n");
  ASSERT_FALSE(out_of_range);
  EXPECT_NE(out_of_range.error().message.find("key 'sm_share': expected a share above 0"), std::string::npos);
  auto bad_duration = parse("gpus:\n  - model: h100\n    phases: [{kind: dataloader_starvation, busy: soon}]\n");
  ASSERT_FALSE(bad_duration);
  EXPECT_NE(bad_duration.error().message.find("key 'busy'"), std::string::npos);
  auto zero_idle = parse("gpus:\n  - model: h100\n    phases: [{kind: dataloader_starvation, idle: 0}]\n");
  EXPECT_FALSE(zero_idle);
  EXPECT_TRUE(parse("gpus:\n  - model: h100\n    phases: [{kind: nccl_hang, duration: 10m, power_ratio: 1.5}]\n"));
}

TEST(SimPhaseShapes, StarvationDutyCycle) {
  auto sim = make("[{kind: dataloader_starvation, duration: 1h, busy: 10s, idle: 6s}]");
  EXPECT_GT(util(sim, 8), 70);   // busy ramp
  EXPECT_EQ(util(sim, 12), 0);   // the gap, 10..16
  EXPECT_EQ(util(sim, 15.5), 0);
  EXPECT_GT(util(sim, 16 + 9), 80);
}

TEST(SimPhaseShapes, SmallKernelsSmShareDrivesGpmAndPower) {
  auto lo = make("[{kind: small_kernels, duration: 1h, sm_share: 0.1}]");
  auto hi = make("[{kind: small_kernels, duration: 1h, sm_share: 0.45}]");
  EXPECT_NEAR(gpm_activity(lo, 0, -1, 100).sm, 0.1 * 99, 5);
  EXPECT_NEAR(gpm_activity(hi, 0, -1, 100).sm, 0.45 * 99, 5);
  EXPECT_LT(at(lo, 100).num[key_index(Key::PowerDraw)], at(hi, 100).num[key_index(Key::PowerDraw)] - 50);
}

TEST(SimPhaseShapes, LeakRateInMiBPerSecond) {
  auto sim = make("[{kind: memory_leak, duration: 1h, leak_mib_per_s: 25}]");
  const double m100 = at(sim, 100).processes.at(0).memory_mib, m200 = at(sim, 200).processes.at(0).memory_mib;
  EXPECT_NEAR(m200 - m100, 2500, 1);
  EXPECT_LT(at(sim, 3000).processes.at(0).memory_mib, 81559);  // capped at the free memory
}

TEST(SimPhaseShapes, ThermalPeakTemperatureAndPowerCapClock) {
  auto sim = make("[{kind: thermal_runaway, duration: 5m, peak_temp: 99}]");
  EXPECT_NEAR(at(sim, 400).num[key_index(Key::TemperatureGpu)], 99, 2);
  auto cap = make("[{kind: power_capping, duration: 1h, clock_ratio: 0.6}]");
  EXPECT_NEAR(at(cap, 100).num[key_index(Key::ClocksCurrentSm)], std::round(1980 * 0.6 / 15) * 15, 15);
}

// nccl_hang: a spinning collective - utilization pinned, no memory traffic, power near
// idle, clocks up, a few SMs active (GPM).
TEST(SimPhaseShapes, NcclHangSpinsAtNearIdlePower) {
  auto sim = make("[{kind: training, duration: 60}, {kind: nccl_hang, duration: 1h}]");
  const DynamicSample s = at(sim, 400);
  EXPECT_GE(s.num[key_index(Key::UtilizationGpu)], 99);
  EXPECT_LE(s.num[key_index(Key::UtilizationMemory)], 3);
  EXPECT_LT(s.num[key_index(Key::PowerDraw)], 72 * 1.5);
  EXPECT_GE(s.num[key_index(Key::ClocksCurrentSm)], 1950);  // max, less a 15 MHz step of noise
  EXPECT_EQ(s.num[key_index(Key::ClocksEventReasonsActive)], 0);
  EXPECT_EQ(s.processes.size(), 1u);
  EXPECT_LT(gpm_activity(sim, 0, -1, 400).sm, 10);
  auto builtin = load_scenario("nccl_hang");
  ASSERT_TRUE(builtin) << builtin.error().message;
  EXPECT_EQ(builtin->gpus.size(), 4u);
  EXPECT_EQ(builtin->gpus[0].phases[1].kind, PhaseKind::NcclHang);
}

// nccl_hang's memory_util: NCCL's polling may show memory traffic (collective_hang, issue 23).
TEST(SimPhaseShapes, NcclHangMemoryUtilIsAShapeParameter) {
  auto sim = make("[{kind: training, duration: 60}, {kind: nccl_hang, duration: 1h, memory_util: 30}]");
  EXPECT_NEAR(at(sim, 400).num[key_index(Key::UtilizationMemory)], 30, 3);
  EXPECT_GE(at(sim, 400).num[key_index(Key::UtilizationGpu)], 99);
  EXPECT_FALSE(parse("gpus:\n  - model: h100\n    phases: [{kind: nccl_hang, duration: 10m, memory_util: 130}]\n"));
  EXPECT_FALSE(parse("gpus:\n  - model: h100\n    phases: [{kind: training, duration: 10m, memory_util: 30}]\n"));
  auto builtin = load_scenario("collective_hang");
  ASSERT_TRUE(builtin) << builtin.error().message;
  EXPECT_EQ(builtin->gpus.size(), 4u);
}

}  // namespace phase_shapes_test
}  // namespace gpuwatch::sim
