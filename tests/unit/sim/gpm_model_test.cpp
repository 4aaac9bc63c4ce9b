// The GPM model: support from Hopper on, activity that follows the phase, means over a
// window, MIG GPU instances busy only with processes; and a dynamic MIG GPU's memory.
#include <gtest/gtest.h>

#include "sim/engine/gpm_model.hpp"
#include "sim/engine/scenario_loader.hpp"

namespace gpuwatch::sim {
namespace gpm_model_test {  // this test file's helpers (unity builds: no clash with another file's)

Simulation make(const std::string& yaml) {
  auto sc = parse_scenario(yaml, "test.yaml", "");
  EXPECT_TRUE(sc) << (sc ? "" : sc.error().message);
  return Simulation(std::move(*sc), {});
}

TEST(GpmModel, SupportedFromComputeCapabilityNine) {
  auto sim = make("gpus:\n  - model: H200\n  - model: A100 SXM 80GB\n  - model: L4\n"
                  "  - {model: A100 SXM 80GB, values: {compute_cap: 9.0}}\n");
  EXPECT_TRUE(gpm_supported(sim, 0));
  EXPECT_FALSE(gpm_supported(sim, 1));
  EXPECT_FALSE(gpm_supported(sim, 2));
  EXPECT_TRUE(gpm_supported(sim, 3));
}

TEST(GpmModel, ActivityFollowsThePhase) {
  auto sim = make(
      "gpus:\n"
      "  - {model: h100, phases: [{kind: training, duration: 1h}]}\n"
      "  - {model: h100, phases: [{kind: small_kernels, duration: 1h}]}\n"
      "  - {model: h100, phases: [{kind: memory_bound, duration: 1h}]}\n"
      "  - {model: h100, phases: [{kind: hung, duration: 1h}]}\n"
      "  - {model: h100}\n");
  GpmActivity train = gpm_activity(sim, 0, -1, 30), small = gpm_activity(sim, 1, -1, 30),
              bound = gpm_activity(sim, 2, -1, 30), hung = gpm_activity(sim, 3, -1, 30),
              still = gpm_activity(sim, 4, -1, 30);
  EXPECT_NEAR(train.graphics, 100, 0.5);
  EXPECT_GT(train.tensor_any, 55);
  EXPECT_GT(train.sm, 85);
  EXPECT_GT(small.graphics, 95);  // busy by utilization...
  EXPECT_LT(small.sm, 35);        // ...on few SMs
  EXPECT_LT(small.tensor_any, 10);
  EXPECT_GT(bound.dram, 85);
  EXPECT_LT(bound.tensor_any, 10);
  EXPECT_EQ(hung.tensor_any, 0);
  EXPECT_EQ(hung.graphics, 0);
  EXPECT_EQ(still.graphics, 0);  // a static GPU does no work
  EXPECT_LE(train.tensor_hmma, train.tensor_any);
}

TEST(GpmModel, WindowMeanOfADataLoaderCycle) {
  auto sim = make("gpus:\n  - {model: h100, phases: [{kind: dataloader_starvation, duration: 1h}]}\n");
  // An 8 s cycle: utilization ramps 0 -> 100 % over 5 s, then 3 s idle: a mean of 31 %.
  GpmActivity cycle = gpm_average(sim, 0, -1, 80, 88);
  EXPECT_NEAR(cycle.graphics, 31.25, 1.5);
  EXPECT_NEAR(cycle.tensor_any, 0.62 * cycle.graphics, 1.0);
  GpmActivity reversed = gpm_average(sim, 0, -1, 88, 80);
  EXPECT_DOUBLE_EQ(reversed.tensor_any, cycle.tensor_any);
  GpmActivity idle_part = gpm_average(sim, 0, -1, 85.5, 87.5);
  EXPECT_EQ(idle_part.graphics, 0);
  EXPECT_DOUBLE_EQ(gpm_average(sim, 0, -1, 83, 83).graphics, gpm_activity(sim, 0, -1, 83).graphics);
}

TEST(GpmModel, MigInstancesWorkOnlyWithProcessesAndMemoryIsCountedOnce) {
  auto mig = load_scenario("mig");
  ASSERT_TRUE(mig);
  Simulation sim(std::move(*mig), {});
  ASSERT_GE(sim.gpu_count(), 3u);
  EXPECT_GT(gpm_activity(sim, 2, 1, 30).tensor_any, 55);  // training in GPU instance 1
  EXPECT_EQ(gpm_activity(sim, 2, 3, 30).tensor_any, 0);   // GPU instance 3 hosts nothing
  EXPECT_EQ(gpm_activity(sim, 2, 7, 30).graphics, 0);     // no such instance
  // The training parent's memory: its instances' usage once (31000 + 9000 + 12 MiB), not twice.
  DynamicSample s;
  sim.evaluate(2, 30, s);
  ASSERT_TRUE(s.has.test(key_index(Key::MemoryUsed)));
  EXPECT_GE(s.num[key_index(Key::MemoryUsed)], 40012);
  EXPECT_LT(s.num[key_index(Key::MemoryUsed)], 45000);
}

}  // namespace gpm_model_test
}  // namespace gpuwatch::sim
