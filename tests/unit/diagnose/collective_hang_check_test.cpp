// collective_hang (issue 23): a hang by its shape - the ranks of one job switch together from
// their working level to pinned utilization at flat, much lower power, whatever the memory
// utilization; a rank that left or went idle is named as the cause, once, and the spinning
// ranks get no stuck_kernel / launch_bound of their own.
#include <gtest/gtest.h>

#include <algorithm>

#include "diagnose/gpu_sample.hpp"
#include "diagnose/thresholds.hpp"
#include "scoring.hpp"
#include "sim_feed.hpp"

namespace gpuwatch::diagnose::testing {
namespace collective_hang_check_test {

std::vector<Finding> of_kind(const std::vector<Finding>& fs, const std::string& kind) {
  std::vector<Finding> out;
  std::copy_if(fs.begin(), fs.end(), std::back_inserter(out), [&](const Finding& f) { return f.kind == kind; });
  return out;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Four ranks of one torchrun job; per GPU its phases (YAML flow list) and whether processes show.
std::string four_ranks(const std::vector<std::string>& phases) {
  std::string y = "name: t\ngpus:\n";
  for (const auto& p : phases)
    y += "  - model: H100 SXM 80GB\n    loop: false\n    phases: " + p +
         "\n    processes:\n      - {command: \"torchrun --nproc-per-node 4 train.py\", user: olga, memory: 50000}\n";
  return y;
}

TEST(DiagnoseCollectiveHang, NcclHangNamesTheDeadRankOnce) {
  for (double interval : {1.0, 5.0}) {
    auto fs = SimFeed::builtin("nccl_hang").diagnose(900, interval);
    auto hangs = of_kind(fs, "collective_hang");
    ASSERT_EQ(hangs.size(), 1u) << listing(fs);
    const Finding& h = hangs.front();
    EXPECT_EQ(h.severity, Severity::Critical);
    EXPECT_EQ(h.gpus, (std::vector<unsigned>{0, 1, 2, 3}));
    EXPECT_EQ(h.cause_gpus, (std::vector<unsigned>{3}));
    EXPECT_TRUE(contains(h.detail, "GPU 3's rank died")) << h.detail;
    EXPECT_TRUE(contains(h.detail, "GPUs 0,1,2 switched together")) << h.detail;
    ASSERT_TRUE(h.job.has_value());
    EXPECT_TRUE(contains(h.job->label, "torchrun")) << h.job->label;
    EXPECT_EQ(h.evidence.at("gone_ranks"), 1);
    EXPECT_EQ(h.evidence.at("spinning_ranks"), 3);
    for (const char* kind : {"stuck_kernel", "launch_bound", "low_utilization", "idle_process"})
      EXPECT_TRUE(of_kind(fs, kind).empty()) << kind << " @" << interval << "s\n" << listing(fs);
  }
}

// The issue's third case: memory utilization 30 % while spinning, every rank alive.
TEST(DiagnoseCollectiveHang, MemoryTrafficDoesNotMakeItLaunchBound) {
  auto fs = SimFeed::builtin("collective_hang").diagnose(900, 5);
  auto hangs = of_kind(fs, "collective_hang");
  ASSERT_EQ(hangs.size(), 1u) << listing(fs);
  EXPECT_EQ(hangs[0].gpus, (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_TRUE(hangs[0].cause_gpus.empty());
  EXPECT_GE(hangs[0].evidence.at("memory_utilization_ratio"), 0.2);
  EXPECT_TRUE(contains(hangs[0].detail, "every rank still alive")) << hangs[0].detail;
  // Found within a few minutes of the switch (3 min), critical once past the NCCL timeout.
  EXPECT_LE(to_seconds(hangs[0].start) - (kEpochS + 180), thresholds::kHangMinS + 30);
  EXPECT_EQ(hangs[0].severity, Severity::Critical);
  EXPECT_TRUE(of_kind(fs, "launch_bound").empty()) << listing(fs);
  EXPECT_TRUE(of_kind(fs, "stuck_kernel").empty()) << listing(fs);
}

// A rank whose process stays but whose GPU went idle is the cause too (a warning: it may come back).
TEST(DiagnoseCollectiveHang, AnIdleRankIsTheCause) {
  const std::string spin = "[{kind: training, duration: 2m}, {kind: nccl_hang, duration: 1h, memory_util: 20}]";
  auto fs = SimFeed::yaml(four_ranks({spin, spin, "[{kind: training, duration: 2m}, {kind: idle, duration: 1h}]", spin}))
                .diagnose(400, 2);
  auto hangs = of_kind(fs, "collective_hang");
  ASSERT_EQ(hangs.size(), 1u) << listing(fs);
  EXPECT_EQ(hangs[0].cause_gpus, (std::vector<unsigned>{2}));
  EXPECT_EQ(hangs[0].gpus, (std::vector<unsigned>{0, 1, 2, 3}));
  EXPECT_EQ(hangs[0].severity, Severity::Warning);
  EXPECT_TRUE(contains(hangs[0].detail, "GPU 2's rank went idle")) << hangs[0].detail;
  EXPECT_TRUE(of_kind(fs, "imbalance").empty()) << listing(fs);  // the hang's spread is not an imbalance
}

// Ranks that switch minutes apart did not hang together: no collective_hang.
TEST(DiagnoseCollectiveHang, SwitchesMinutesApartAreNotOneHang) {
  auto fs = SimFeed::yaml(four_ranks({"[{kind: training, duration: 2m}, {kind: nccl_hang, duration: 1h, memory_util: 20}]",
                                      "[{kind: training, duration: 5m}, {kind: nccl_hang, duration: 1h, memory_util: 20}]"}))
                .diagnose(600, 2);
  EXPECT_TRUE(of_kind(fs, "collective_hang").empty()) << listing(fs);
}

// Pinned at low power from the first sample: no switch seen, so no hang by shape (stuck_kernel's
// older rule, memory utilization ~0, still applies per GPU).
TEST(DiagnoseCollectiveHang, NoSwitchNoCollectiveHang) {
  auto fs = SimFeed::yaml(four_ranks({"[{kind: nccl_hang, duration: 1h}]", "[{kind: nccl_hang, duration: 1h}]"}))
                .diagnose(700, 5);
  EXPECT_TRUE(of_kind(fs, "collective_hang").empty()) << listing(fs);
  EXPECT_EQ(of_kind(fs, "stuck_kernel").size(), 2u) << listing(fs);
}

// One GPU alone cannot hang in a collective; a steady launch-bound GPU is still launch-bound.
TEST(DiagnoseCollectiveHang, SmallKernelsStayLaunchBound) {
  auto fs = SimFeed::builtin("small_kernels").diagnose(600, 5);
  EXPECT_TRUE(of_kind(fs, "collective_hang").empty()) << listing(fs);
  EXPECT_EQ(of_kind(fs, "launch_bound").size(), 1u) << listing(fs);
}

// The hang ends when the job is killed: the finding closes, no other finding takes its place.
TEST(DiagnoseCollectiveHang, EndsWhenTheJobIsKilled) {
  const std::string p = "[{kind: training, duration: 2m}, {kind: nccl_hang, duration: 5m}, {kind: idle, duration: 1h, processes: false}]";
  auto fs = SimFeed::yaml(four_ranks({p, p})).diagnose(900, 5);
  auto hangs = of_kind(fs, "collective_hang");
  ASSERT_EQ(hangs.size(), 1u) << listing(fs);
  EXPECT_FALSE(hangs[0].active);
  EXPECT_LE(to_seconds(hangs[0].end), kEpochS + 425);
}

}  // namespace collective_hang_check_test
}  // namespace gpuwatch::diagnose::testing
