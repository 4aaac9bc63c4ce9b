// The engine's rules on hand-made snapshots: absent is not zero, no judgement from too little
// data, hysteresis, Xids from their own entry point, lost GPUs, the batch window.
#include "diagnose/diagnoser.hpp"

#include <gtest/gtest.h>

#include "diagnose/window_diagnosis.hpp"
#include "snapshot_builder.hpp"

namespace gpuwatch::diagnose::testing {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

bool has(const std::vector<Finding>& fs, const std::string& kind) {
  for (const auto& f : fs)
    if (f.kind == kind) return true;
  return false;
}

TEST(DiagnoseEngine, AbsentUtilizationIsNotIdle) {
  Diagnoser d;
  GpuValues v{.util = std::nullopt, .power_w = 80.0, .used_bytes = 40 * kGiB, .process_bytes = 40 * kGiB};
  for (int t = 0; t < 900; ++t) d.observe(make_snapshot(t, v));
  EXPECT_TRUE(d.all_findings().empty()) << d.all_findings().front().kind;
}

TEST(DiagnoseEngine, IdleProcessNeedsFiveMinutes) {
  Diagnoser d;
  GpuValues v{.util = 0.0, .power_w = 90.0, .used_bytes = 40 * kGiB, .process_bytes = 40 * kGiB};
  for (int t = 0; t < 280; ++t) d.observe(make_snapshot(t, v));
  EXPECT_FALSE(has(d.findings(), "idle_process"));
  for (int t = 280; t < 320; ++t) d.observe(make_snapshot(t, v));
  ASSERT_TRUE(has(d.findings(), "idle_process"));
  auto f = d.findings_for(0).front();
  EXPECT_EQ(f.severity, Severity::Warning);
  EXPECT_EQ(f.pid, 100u);
  EXPECT_EQ(f.uuids, std::vector<std::string>{"GPU-test-0"});
  EXPECT_FALSE(f.summary.empty());
  EXPECT_FALSE(f.advice.empty());
}

TEST(DiagnoseEngine, NoLeakFromTenSecondsOfGrowth) {
  Diagnoser d;
  for (int t = 0; t < 10; ++t) {
    const double used = (20 + t) * kGiB;
    d.observe(make_snapshot(t, {.util = 1.0, .power_w = 500.0, .used_bytes = used, .process_bytes = used}));
  }
  EXPECT_FALSE(has(d.all_findings(), "memory_leak"));
}

TEST(DiagnoseEngine, SteadyGrowthIsALeakWithRateAndTimeToOom) {
  Diagnoser d;
  for (int t = 0; t < 200; ++t) {
    const double used = 10 * kGiB + t * 50.0 * 1048576;  // 50 MiB/s
    d.observe(make_snapshot(t, {.util = 1.0, .power_w = 500.0, .used_bytes = used, .process_bytes = used}));
  }
  ASSERT_TRUE(has(d.findings(), "memory_leak"));
  const auto f = d.findings().front();
  EXPECT_NEAR(f.evidence.at("rate_bytes_per_s"), 50.0 * 1048576, 1e5);
  const double oom = (80 * kGiB - (10 * kGiB + 199 * 50.0 * 1048576)) / (50.0 * 1048576);
  EXPECT_NEAR(f.evidence.at("time_to_oom_s"), oom, 30);
}

TEST(DiagnoseEngine, AShortBlipDoesNotRaiseAndFindingsEndWithHysteresis) {
  Diagnoser d;
  GpuValues hot{.util = 1.0, .power_w = 600.0, .reasons = kReasonSwThermal | kReasonHwThermal, .sm_hz = 1.0e9, .max_sm_hz = 2.0e9};
  GpuValues ok{.util = 1.0, .power_w = 600.0, .reasons = 0, .sm_hz = 2.0e9, .max_sm_hz = 2.0e9};
  for (int t = 0; t < 200; ++t) d.observe(make_snapshot(t, t == 100 ? hot : ok));  // one sample in 200
  EXPECT_TRUE(d.all_findings().empty());
  for (int t = 200; t < 400; ++t) d.observe(make_snapshot(t, hot));
  ASSERT_TRUE(has(d.findings(), "thermal_throttle"));
  EXPECT_NEAR(d.findings().front().evidence.at("sm_clock_loss_ratio"), 0.5, 1e-6);
  for (int t = 400; t < 700; ++t) d.observe(make_snapshot(t, ok));
  EXPECT_TRUE(d.findings().empty());
  auto all = d.all_findings();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_FALSE(all[0].active);
  EXPECT_GT(all[0].end, all[0].start);
  EXPECT_GT(all[0].end, at_s(400));  // the window still saw throttling after it stopped
}

TEST(DiagnoseEngine, XidsComeThroughTheirOwnEntryPoint) {
  Diagnoser d;
  d.observe(make_snapshot(0, {.util = 1.0}));
  d.observe_xid(0, 48, at_s(1));
  d.observe_xid(0, 31, at_s(2));
  auto fs = d.findings();
  ASSERT_EQ(fs.size(), 2u);
  for (const auto& f : fs) {
    EXPECT_EQ(f.kind, "xid");
    EXPECT_EQ(f.severity, f.evidence.at("xid") == 48 ? Severity::Critical : Severity::Info);
  }
  // Held 15 minutes after the last one, then ended.
  for (int t = 1; t < 1000; t += 10) d.observe(make_snapshot(t, {.util = 1.0}));
  EXPECT_TRUE(d.findings().empty());
  EXPECT_EQ(d.all_findings().size(), 2u);
}

TEST(DiagnoseEngine, LostGpuIsCriticalAndEndsLoadFindings) {
  Diagnoser d;
  GpuValues idle{.util = 0.0, .power_w = 90.0, .used_bytes = 40 * kGiB, .process_bytes = 40 * kGiB};
  for (int t = 0; t < 400; ++t) d.observe(make_snapshot(t, idle));
  ASSERT_TRUE(has(d.findings(), "idle_process"));
  core::Snapshot lost = make_snapshot(400, idle);
  lost.devices[0] = core::DeviceSnapshot{};
  lost.devices[0].state = core::DeviceState::Lost;
  d.observe(lost);
  auto fs = d.findings();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].kind, "gpu_lost");
  EXPECT_EQ(fs[0].severity, Severity::Critical);
}

TEST(DiagnoseEngine, WindowDiagnosisMergesXidsAndReportsEndedFindings) {
  std::vector<core::Snapshot> snaps;
  for (int t = 0; t < 60; ++t) snaps.push_back(make_snapshot(t, {.util = 1.0}));
  std::vector<XidEvent> xids{{0, 79, at_s(30)}};
  auto fs = diagnose_window(snaps, xids);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].start, at_s(30));
  EXPECT_EQ(worst_severity(fs), Severity::Critical);
}

}  // namespace
}  // namespace gpuwatch::diagnose::testing
