// Scenarios the engine was not tuned on: other duty cycles, SM shares, leak rates, peak
// temperatures, power limits and models (A100 PCIe, L4, H200, A100). Each pathological one
// must get its finding on the right GPU, the healthy ones no warning; misses and false
// positives are counted together.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>

#include "scoring.hpp"
#include "sim_feed.hpp"

namespace gpuwatch::diagnose::testing {
namespace shape_variants_test {  // this test file's helpers (unity builds: no clash with another file's)

struct Variant {
  Expectation e;
  std::string yaml;
  double seconds;
};

std::string one_gpu(const std::string& model, const std::string& phases, const std::string& extra = "",
                    const std::string& memory = "20000", bool loop = false) {
  return "gpus:\n  - model: " + model + "\n" + extra + "    phases: " + phases + "\n    loop: " +
         (loop ? "true" : "false") + "\n    processes: [{command: python job.py, user: t, memory: " + memory + "}]\n";
}

const std::vector<Variant>& variants() {
  static const std::vector<Variant> kVariants = {
      // input_starved: other duty cycles and models.
      {{"starved 2s/2s a100pcie", {{"input_starved", 0}}, {}},
       one_gpu("a100pcie", "[{kind: dataloader_starvation, duration: 1h, busy: 2s, idle: 2s}]"), 600},
      {{"starved 12s/3s l4", {{"input_starved", 0}}, {}},
       one_gpu("l4", "[{kind: dataloader_starvation, duration: 1h, busy: 12s, idle: 3s}]", "", "9000"), 600},
      {{"starved 20s/10s h200", {{"input_starved", 0}}, {}},
       one_gpu("h200", "[{kind: training, duration: 90s}, {kind: dataloader_starvation, duration: 1h, busy: 20s, idle: 10s}]"), 700},
      // launch_bound: other SM shares, with and without GPM.
      {{"small kernels 15% h100", {{"launch_bound", 0}}, {}},
       one_gpu("h100", "[{kind: small_kernels, duration: 1h, sm_share: 0.15}]"), 600},
      {{"small kernels 40% l4", {{"launch_bound", 0}}, {}},
       one_gpu("l4", "[{kind: small_kernels, duration: 1h, sm_share: 0.4}]", "", "6000"), 600},
      {{"small kernels 20% a100pcie", {{"launch_bound", 0}}, {}},
       one_gpu("a100pcie", "[{kind: training, duration: 2m}, {kind: small_kernels, duration: 1h, sm_share: 0.2}]"), 600},
      // memory_leak: other rates and sizes.
      {{"leak 20 MiB/s l4", {{"memory_leak", 0}}, {{"memory_pressure", 0}}},
       one_gpu("l4", "[{kind: training, duration: 60s}, {kind: memory_leak, duration: 1h, leak_mib_per_s: 20}]", "", "4000"), 600},
      {{"leak 6 MiB/s a100", {{"memory_leak", 0}}, {}},
       one_gpu("a100", "[{kind: memory_leak, duration: 2h, leak_mib_per_s: 6}]"), 900},
      {{"leak to OOM in 20 min h200", {{"memory_leak", 0}}, {{"memory_pressure", 0}}},
       one_gpu("h200", "[{kind: training, duration: 2m}, {kind: memory_leak, duration: 20m}]"), 900},
      // thermal, power, hang, idle on other models and shapes.
      {{"thermal peak 97 a100pcie", {{"thermal_throttle", 0}}, {}},
       one_gpu("a100pcie", "[{kind: training, duration: 60s}, {kind: thermal_runaway, duration: 8m, peak_temp: 97}]"), 600},
      {{"power cap 300 W a100, clocks 88%", {{"power_cap", 0}}, {}},
       one_gpu("a100", "[{kind: power_capping, duration: 1h, clock_ratio: 0.88}]",
               "    values: {power.limit: 300.00, enforced.power.limit: 300.00}\n"), 600},
      {{"nccl hang a100", {{"stuck_kernel", 0}}, {}},
       one_gpu("a100", "[{kind: training, duration: 3m}, {kind: nccl_hang, duration: 1h, power_ratio: 1.5}]"), 900},
      {{"nccl hang l4", {{"stuck_kernel", 0}}, {}},
       one_gpu("l4", "[{kind: training, duration: 1m}, {kind: nccl_hang, duration: 1h}]", "", "6000"), 800},
      {{"hung l4", {{"idle_process", 0}}, {}}, one_gpu("l4", "[{kind: training, duration: 2m}, {kind: hung, duration: 1h}]", "", "6000"), 800},
      // Healthy shapes: no warning.
      {{"training l4", {}, {}}, one_gpu("l4", "[{kind: training, duration: 1h, intensity: 0.9}]", "", "15000"), 900},
      {{"training h200", {}, {}}, one_gpu("h200", "[{kind: idle, duration: 30s}, {kind: training, duration: 1h}]", "", "120000"), 900},
      {{"training a100pcie with checkpoint pauses", {}, {}},
       one_gpu("a100pcie", "[{kind: training, duration: 5m}, {kind: idle, duration: 25s}]", "", "30000", true), 1200},
      {{"memory bound a100", {}, {}}, one_gpu("a100", "[{kind: memory_bound, duration: 1h}]"), 600},
      {{"allocator cache growing for 3 min", {}, {}},
       one_gpu("h100", "[{kind: fragmentation, duration: 1h, cache_growth: 3m, cache_fraction: 0.6}]"), 900},
      {{"idle l4 without processes", {}, {}}, "gpus:\n  - model: l4\n    phases: [{kind: idle, duration: 1h}]\n", 600},
  };
  return kVariants;
}

TEST(DiagnoseShapeVariants, UnseenShapesGetTheirFindingAndHealthyOnesNoWarning) {
  int misses = 0, false_positives = 0;
  for (const auto& v : variants()) {
    auto feed = SimFeed::yaml(v.yaml);
    auto findings = feed.diagnose(v.seconds);
    Score s = score(v.e, findings);
    misses += s.misses;
    false_positives += s.false_positives;
    if (s.misses + s.false_positives > 0 || std::getenv("GPUWATCH_DIAGNOSE_VERBOSE"))
      std::cout << v.e.name << ": " << s.misses << " miss(es), " << s.false_positives << " false positive(s)\n"
                << s.report << listing(findings);
  }
  std::cout << "shape variants: " << variants().size() << ", misses " << misses << ", false positives "
            << false_positives << "\n";
  EXPECT_EQ(misses, 0);
  EXPECT_EQ(false_positives, 0);
}

}  // namespace shape_variants_test
}  // namespace gpuwatch::diagnose::testing
