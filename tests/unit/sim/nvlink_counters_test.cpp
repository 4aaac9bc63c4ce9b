// The simulated NVLink data counters (issue 25): the integral of a GPU's nvlink.tx/rx_throughput
// (KB/s) times the share of the phase's traffic that flows (with the load, in the gaps, steady);
// the NVLink boards of the catalog have the keys (0 KB/s until a scenario sets them), PCIe boards
// answer [N/A]; a phase's `nvlink:` is checked.
#include <gtest/gtest.h>

#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/simulation.hpp"

namespace gpuwatch::sim {
namespace nvlink_counters_test {  // this test file's helpers (unity builds: no clash with another file's)

Simulation make_nvlink(const std::string& yaml) {
  auto sc = parse_scenario(yaml, "test.yaml", "");
  EXPECT_TRUE(sc) << (sc ? "" : sc.error().message);
  return Simulation(std::move(*sc), {});
}

std::array<double, 2> kib_at(const Simulation& sim, unsigned gpu, double t) {
  DynamicSample s;
  sim.evaluate(gpu, t, s);
  return s.nvlink_kib;
}

}  // namespace nvlink_counters_test

using namespace nvlink_counters_test;

TEST(SimNvlink, CatalogNvlinkBoardsHaveTheKeysPcieBoardsAnswerNotSupported) {
  auto sim = make_nvlink("gpus:\n  - model: h100\n  - model: H200\n  - model: a100\n  - model: V100\n"
                         "  - model: A100 PCIe 40GB\n  - model: L4\n  - model: RTX 4090\n");
  for (unsigned g = 0; g < 4; ++g) {
    EXPECT_TRUE(sim.static_value(g, Key::NvlinkTxThroughput).is_number()) << g;
    EXPECT_EQ(sim.static_value(g, Key::NvlinkRxThroughput).number, 0) << g;
  }
  for (unsigned g = 4; g < 7; ++g) {
    EXPECT_TRUE(sim.static_value(g, Key::NvlinkTxThroughput).is_error()) << g;
    EXPECT_EQ(sim.static_value(g, Key::NvlinkRxThroughput).error, 3) << g;  // NVML_ERROR_NOT_SUPPORTED
  }
}

TEST(SimNvlink, TrafficFollowsTheLoadByDefault) {
  auto sim = make_nvlink(
      "gpus:\n  - model: h100\n    values: {nvlink.tx_throughput: 1000000, nvlink.rx_throughput: 250000}\n"
      "    phases: [{kind: idle, duration: 20}, {kind: training, duration: 600}]\n    loop: false\n");
  // Idle: nothing moves.
  EXPECT_DOUBLE_EQ(kib_at(sim, 0, 15)[0], 0);
  // Training (100 % busy): 1e6 KiB/s transmitted, 2.5e5 received.
  const auto a = kib_at(sim, 0, 100), b = kib_at(sim, 0, 110);
  EXPECT_NEAR(b[0] - a[0], 1e7, 1e7 * 0.01);
  EXPECT_NEAR(b[1] - a[1], 2.5e6, 2.5e6 * 0.01);
  // The rate now is the key's dynamic value; the counters only grow.
  DynamicSample s;
  sim.evaluate(0, 100, s);
  EXPECT_NEAR(s.num[key_index(Key::NvlinkTxThroughput)], 1e6, 1e4);
  EXPECT_GE(kib_at(sim, 0, 100.5)[0], a[0]);
}

TEST(SimNvlink, GapsPhaseMovesDataWhileTheKernelsWait) {
  auto sim = make_nvlink(
      "gpus:\n  - model: h100\n    values: {nvlink.tx_throughput: 1000}\n"
      "    phases: [{kind: dataloader_starvation, duration: 600, busy: 5s, idle: 5s, ramp: 0s, nvlink: gaps}]\n");
  // Busy part [0, 5): no traffic; gap [5, 10): 1000 KiB/s.
  EXPECT_NEAR(kib_at(sim, 0, 5)[0] - kib_at(sim, 0, 0)[0], 0, 1e-9);
  EXPECT_NEAR(kib_at(sim, 0, 10)[0] - kib_at(sim, 0, 5)[0], 5000, 1e-6);
  auto steady = make_nvlink(
      "gpus:\n  - model: h100\n    values: {nvlink.tx_throughput: 1000}\n"
      "    phases: [{kind: idle, duration: 600, nvlink: steady}]\n");
  EXPECT_NEAR(kib_at(steady, 0, 30)[0] - kib_at(steady, 0, 20)[0], 10000, 1e-6);
}

TEST(SimNvlink, AStaticGpuMovesDataAtTheRateWritten) {
  auto sim = make_nvlink("gpus:\n  - model: h200\n    values: {nvlink.rx_throughput: 2048}\n");
  EXPECT_DOUBLE_EQ(kib_at(sim, 0, 10)[1], 20480);
  EXPECT_DOUBLE_EQ(kib_at(sim, 0, 10)[0], 0);
}

TEST(SimNvlink, PhaseNvlinkMustBeLoadGapsOrSteady) {
  auto sc = parse_scenario("gpus:\n  - model: h100\n    phases: [{kind: training, duration: 60, nvlink: sometimes}]\n",
                           "test.yaml", "");
  ASSERT_FALSE(sc);
  EXPECT_NE(sc.error().message.find("load, gaps or steady"), std::string::npos) << sc.error().message;
}

}  // namespace gpuwatch::sim
