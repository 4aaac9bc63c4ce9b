#include "jobs/job_summary.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::jobs {
namespace job_summary_test {  // this test file's helpers (unity builds: no clash with another file's)

using core::FieldId;
using core::FieldReading;

TimePoint at_s(double s) { return TimePoint(std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000))); }

DeviceStats stats(unsigned index, bool used, double util, double power_w) {
  DeviceStats s;
  for (int i = 0; i < 3; ++i) {
    core::DeviceSnapshot d;
    d.index = index;
    d.get(FieldId::Uuid) = FieldReading::of("GPU-" + std::to_string(index));
    d.get(FieldId::Name) = FieldReading::of(std::string("H100"));
    d.get(FieldId::UtilizationGpu) = FieldReading::of(util);
    d.get(FieldId::PowerDraw) = FieldReading::of(power_w);
    d.get(FieldId::MemoryUsed) = FieldReading::of(std::uint64_t{40} << 30);
    d.get(FieldId::MemoryTotal) = FieldReading::of(std::uint64_t{80} << 30);
    observe(s, d, at_s(1000 + i), used ? std::set<std::uint32_t>{42} : std::set<std::uint32_t>{}, {});
  }
  return s;
}

JobInfo info(int exit_status = 0, std::optional<int> signal = std::nullopt) {
  JobInfo i;
  i.id = 7;
  i.name = "train";
  i.command = {"python", "train.py"};
  i.user = "alice";
  i.host = "node1";
  i.start = at_s(1000);
  i.end = at_s(1000 + 2 * 3600 + 12 * 60 + 5);
  i.exit_status = exit_status;
  i.signal = signal;
  return i;
}

diagnose::Finding finding(const char* kind, std::vector<unsigned> gpus) {
  diagnose::Finding f;
  f.kind = kind;
  f.gpus = std::move(gpus);
  f.summary = kind;
  return f;
}

TEST(JobSummary, KeepsOnlyTheJobsGpusTheirXidsAndFindings) {
  auto s = summarize(info(), {stats(0, false, 0.1, 100), stats(3, true, 0.8, 300)},
                     {{0, 31, 1}, {3, 79, 2}}, {finding("thermal_throttle", {3}), finding("memory_leak", {0})}, {});
  ASSERT_EQ(s.gpus.size(), 1u);
  EXPECT_EQ(s.gpus[0].index, 3u);
  ASSERT_EQ(s.xids.size(), 1u);
  EXPECT_EQ(s.xids[0].xid, 79u);
  ASSERT_EQ(s.findings.size(), 1u);
  EXPECT_EQ(s.findings[0].kind, "thermal_throttle");
  EXPECT_NEAR(s.gpu_hours, (2 * 3600 + 12 * 60 + 5) / 3600.0, 1e-9);
  ASSERT_TRUE(s.energy_j);
  EXPECT_DOUBLE_EQ(*s.energy_j, 600);  // 300 W for 2 s
  EXPECT_EQ(s.energy_source, "estimated");
}

TEST(JobSummary, AJobWithoutGpusSaysSo) {
  auto s = summarize(info(), {stats(0, false, 0.1, 100)}, {}, {}, {});
  EXPECT_TRUE(s.gpus.empty());
  EXPECT_EQ(s.energy_j, std::nullopt);
  EXPECT_NE(summary_text(s).find("used no GPU"), std::string::npos);
  auto j = summary_json(s);
  EXPECT_EQ(j["uses_gpu"], false);
  EXPECT_TRUE(j["energy_wh"].is_null());
  EXPECT_TRUE(j["utilization_mean_ratio"].is_null());
}

TEST(JobSummary, AJobWithoutGpusStillPrintsItsStepsAndEveryFindingWithAdvice) {
  auto s = summarize(info(), {stats(0, false, 0.1, 100)}, {}, {}, StepsSummary{40, 0, 0.75});
  diagnose::Finding starved = finding("input_starved", {});
  starved.severity = diagnose::Severity::Warning;
  starved.summary = "measured from inside the job: 75 % of step time waiting for data";
  starved.advice = {"raise num_workers", "pin_memory=True"};
  s.findings.push_back(starved);
  const std::string text = summary_text(s);
  EXPECT_NE(text.find("used no GPU"), std::string::npos) << text;
  EXPECT_NE(text.find("  steps: 40 recorded by the job, 75 % of step time waiting for data\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    warning input_starved (no GPU): measured from inside the job: 75 % of step time waiting for data\n"
                      "      try: raise num_workers\n      try: pin_memory=True\n"),
            std::string::npos)
      << text;
}

TEST(JobSummary, FindingsNameTheirGpusAndAreEncodedForTheTerminal) {
  auto s = summarize(info(), {stats(3, true, 0.8, 300)}, {}, {}, {});
  diagnose::Finding hang = finding("collective_hang", {0, 1, 3});
  hang.severity = diagnose::Severity::Critical;
  hang.summary = "rank died \x1b[31m";  // a process name may carry escapes: never raw to the terminal
  hang.advice = {"check rank 3's log"};
  s.findings.push_back(hang);
  const std::string text = summary_text(s);
  EXPECT_NE(text.find("    critical collective_hang (GPUs 0,1,3): rank died "), std::string::npos) << text;
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_NE(text.find("      try: check rank 3's log\n"), std::string::npos) << text;
}

TEST(JobSummary, EndMessageSaysFinishedOrFailedAndHowLong) {
  EXPECT_EQ(end_message(info()), "job train finished after 2 h 12 m");
  EXPECT_EQ(end_message(info(3)), "job train failed (exit 3) after 2 h 12 m");
  EXPECT_EQ(end_message(info(143, 15)), "job train failed (signal 15) after 2 h 12 m");
  EXPECT_EQ(duration_words(12.4), "12 s");
  EXPECT_EQ(duration_words(245), "4 m 05 s");
}

TEST(JobSummary, JsonHasTheDocumentedKeys) {
  StepsSummary steps{100, 2, 0.41};
  auto s = summarize(info(), {stats(3, true, 0.8, 300)}, {}, {}, steps);
  auto j = summary_json(s);
  for (const char* key : {"id", "name", "command", "user", "host", "start_unix_s", "end_unix_s", "wall_s", "exit_status",
                          "signal", "uses_gpu", "gpu_hours", "energy_wh", "energy_source", "utilization_mean_ratio",
                          "utilization_p95_ratio", "gpus", "throttle_s", "xids", "steps", "findings"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["id"], 7);
  EXPECT_NEAR(j["energy_wh"].get<double>(), 600 / 3600.0, 1e-12);
  EXPECT_NEAR(j["utilization_p95_ratio"].get<double>(), 0.8, 1e-12);
  const auto& g = j["gpus"][0];
  for (const char* key : {"index", "uuid", "name", "pids", "mig", "samples", "utilization_mean_ratio",
                          "utilization_p95_ratio", "sm_active_mean_ratio", "tensor_active_mean_ratio", "memory_peak_bytes",
                          "memory_total_bytes", "energy_wh", "energy_source", "throttle_s"})
    EXPECT_TRUE(g.contains(key)) << key;
  EXPECT_TRUE(g["sm_active_mean_ratio"].is_null());  // no GPM: absent, not 0
  EXPECT_EQ(j["steps"]["count"], 100);
  EXPECT_EQ(j["steps"]["malformed"], 2);
  EXPECT_EQ(gpus_json(s)[0]["uuid"], "GPU-3");
}

TEST(JobSummary, TextShowsWallTimeEnergySourceAndPeakMemory) {
  auto text = summary_text(summarize(info(), {stats(3, true, 0.8, 300)}, {}, {}, {}));
  EXPECT_NE(text.find("job train finished after 2 h 12 m"), std::string::npos);
  EXPECT_NE(text.find("integrated from power samples"), std::string::npos);
  EXPECT_NE(text.find("peak memory 40.0 GiB of 80.0 GiB"), std::string::npos);
  EXPECT_NE(text.find("report --job 7"), std::string::npos);
}

TEST(JobSummary, MergeFindingsKeepsTheLatestVersionOfEach) {
  std::vector<diagnose::Finding> seen;
  auto a = finding("thermal_throttle", {3});
  merge_findings(seen, {a});
  a.severity = diagnose::Severity::Warning;
  merge_findings(seen, {a, finding("xid", {3})});
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].severity, diagnose::Severity::Warning);
}

}  // namespace job_summary_test
}  // namespace gpuwatch::jobs
