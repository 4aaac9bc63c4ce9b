// The report's summary in words (report/summary.hpp): sentences made from the findings and the
// range's figures, never fixed text.
#include "report/summary.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "diagnose/kinds.hpp"

namespace gpuwatch::report {
namespace summary_test {  // this test file's helpers (unity builds: no clash with another file's)

constexpr std::int64_t kT0 = 1'700'000'000'000;  // 2023-11-14 22:13:20 UTC
const TimeStyle kUtc{true};

std::chrono::system_clock::time_point at(std::int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

store::HistoryReport node(unsigned gpus) {
  store::HistoryReport report;
  for (unsigned i = 0; i < gpus; ++i) {
    store::GpuSummary s;
    s.gpu.index = i;
    s.first_ms = kT0;
    s.last_ms = kT0 + 360'000;
    s.samples = 361;
    s.mean_utilization_percent = 99;
    s.max_temperature_c = 66;
    s.energy_kwh = 0.06;
    report.gpus.push_back(s);
  }
  return report;
}

diagnose::Finding finding(const char* kind, diagnose::Severity severity, unsigned gpu) {
  diagnose::Finding f;
  f.kind = kind;
  f.severity = severity;
  f.gpus = {gpu};
  f.start = at(kT0 + 20'000);
  f.end = at(kT0 + 120'000);
  f.active = false;
  return f;
}

TEST(ReportSummary, ThermalThrottlingWithTheRangesShareAndClocks) {
  auto report = node(8);
  report.gpus[3].thermal_share = 0.68;
  report.gpus[3].mean_sm_clock_mhz = 1120.4;
  report.gpus[3].max_sm_clock_mhz = 1980;
  report.gpus[3].max_temperature_c = 92;
  auto f = finding("thermal_throttle", diagnose::Severity::Critical, 3);
  f.evidence["throttled_ratio"] = 0.4;  // the finding's own window: the range's share wins
  EXPECT_EQ(finding_sentence(f, report, kUtc),
            "GPU 3 spent 68 % of the 6m 00s recorded thermally throttled; its SM clock averaged 1,120 of 1,980 MHz, "
            "at up to 92 °C.");
  // Without the range's share, the finding's own, and the sentence says it counts the finding's window.
  report.gpus[3].thermal_share.reset();
  report.gpus[3].max_sm_clock_mhz.reset();
  f.evidence["window_s"] = 120;
  EXPECT_EQ(finding_sentence(f, report, kUtc),
            "GPU 3 spent 40 % of its last 2m 00s thermally throttled; its SM clock averaged 1,120 MHz, at up to 92 °C.");
  f.evidence.erase("window_s");
  EXPECT_EQ(finding_sentence(f, report, kUtc),
            "GPU 3 spent 40 % of the time thermally throttled; its SM clock averaged 1,120 MHz, at up to 92 °C.");
}

TEST(ReportSummary, PowerCapAndHeldBackClocksNameTheTimeTheyCount) {
  auto report = node(2);
  report.gpus[1].power_capped_share = 0.25;
  auto f = finding("power_cap", diagnose::Severity::Warning, 1);
  EXPECT_EQ(finding_sentence(f, report, kUtc), "GPU 1 was held at its power limit 25 % of the 6m 00s recorded.");
  report.gpus[1].held_back_share = 0.5;
  f = finding("other_throttle", diagnose::Severity::Warning, 1);
  f.summary = "clocks held by the application";
  EXPECT_EQ(finding_sentence(f, report, kUtc),
            "GPU 1 had its clocks held back 50 % of the 6m 00s recorded (clocks held by the application).");
}

TEST(ReportSummary, MemoryLeakNamesTheProgramItsRateAndTheOom) {
  auto report = node(8);
  store::ProcessSummary p;
  p.gpu_index = 6;
  p.pid = 14735;
  p.name = "python eval_server.py --port 8000";
  report.processes.push_back(p);
  auto f = finding("memory_leak", diagnose::Severity::Critical, 6);
  f.pid = 14735;
  f.evidence["rate_bytes_per_s"] = 8.0 * 1024 * 1024 * 1024 / 60;  // 8 GiB/min
  f.evidence["time_to_oom_s"] = 30;
  EXPECT_EQ(finding_sentence(f, report, kUtc),
            "GPU 6's eval_server.py (PID 14735) grew 8.0 GiB/min until 22:15:20, on course for out of memory at "
            "22:15:50.");
  f.active = true;
  EXPECT_EQ(finding_sentence(f, report, kUtc),
            "GPU 6's eval_server.py (PID 14735) grew 8.0 GiB/min; at that rate the GPU runs out of memory at 22:15:50.");
  // A real driver names it `python`: the recorded command line (schema 11) names the script.
  report.processes[0].name = "python";
  report.processes[0].command = "/usr/bin/python3 -u eval_server.py --port 8000";
  EXPECT_EQ(finding_sentence(f, report, kUtc).rfind("GPU 6's eval_server.py (PID 14735) grew", 0), 0U);
  report.processes[0].command.reset();
  EXPECT_EQ(finding_sentence(f, report, kUtc).rfind("GPU 6's python (PID 14735) grew", 0), 0U);
}

TEST(ReportSummary, XidAndOtherKinds) {
  auto report = node(2);
  auto xid = finding("xid", diagnose::Severity::Warning, 1);
  xid.summary = "Xid 79: GPU has fallen off the bus";
  xid.evidence["count"] = 2;
  EXPECT_EQ(finding_sentence(xid, report, kUtc), "GPU 1 reported Xid 79: GPU has fallen off the bus (2 times) at 22:13:40.");
  auto other = finding("input_starved", diagnose::Severity::Warning, 0);
  other.summary = "input pipeline starves the GPU";
  other.impact = 0.3;
  EXPECT_EQ(finding_sentence(other, report, kUtc),
            "GPU 0: input pipeline starves the GPU (from 22:13:40, 1m 40s); about 30 % of its time lost.");
}

// Each kind's sentence (diagnose/kinds.def) names only fields the report fills: a field it does
// not know would throw here, not in a user's report.
TEST(ReportSummary, EveryKindHasASentenceWithItsFieldsFilled) {
  auto report = node(1);
  for (const auto& info : diagnose::kind_table()) {
    auto f = finding(std::string(info.id).c_str(), diagnose::Severity::Warning, 0);
    f.summary = "its summary";
    f.pid = 42;
    f.evidence = {{"count", 2}, {"rate_bytes_per_s", 1e6}, {"throttled_ratio", 0.3}, {"time_to_oom_s", 60}};
    std::string text;
    ASSERT_NO_THROW(text = finding_sentence(f, report, kUtc)) << info.id;
    EXPECT_TRUE(text.starts_with("GPU 0")) << text;
    EXPECT_TRUE(text.ends_with(".")) << text;
    EXPECT_EQ(text.find_first_of("{}"), std::string::npos) << text;
  }
  // A kind this build does not know (a newer build's history): the generic sentence.
  auto newer = finding("some_newer_kind", diagnose::Severity::Warning, 0);
  EXPECT_EQ(finding_sentence(newer, report, kUtc), "GPU 0: some_newer_kind (from 22:13:40, 1m 40s).");
}

TEST(ReportSummary, WorstFirstThenHealthyGpusThenTheNode) {
  auto report = node(8);
  report.gpus[3].thermal_share = 0.5;
  ReportFindings findings;
  findings.diagnosed = true;
  findings.samples = 361;
  findings.findings.push_back(finding("power_cap", diagnose::Severity::Warning, 1));
  findings.findings.push_back(finding("thermal_throttle", diagnose::Severity::Critical, 3));
  findings.findings.push_back(finding("low_utilization", diagnose::Severity::Info, 5));  // no line of its own
  const auto lines = report_summary(report, findings, kUtc);
  ASSERT_EQ(lines.size(), 4U);
  EXPECT_EQ(lines[0].severity, diagnose::Severity::Critical);
  EXPECT_EQ(lines[0].gpus, std::vector<unsigned>{3});
  EXPECT_EQ(lines[1].severity, diagnose::Severity::Warning);
  EXPECT_EQ(lines[2].text, "GPUs 0, 2, 4, 5, 6 and 7 look healthy: 99 % busy on average, 66 °C at most.");
  EXPECT_FALSE(lines[2].severity);
  EXPECT_EQ(lines[3].text, "8 GPUs over 6m 00s from 2023-11-14 22:13:20: 99 % utilization on average, 480 Wh used.");
}

TEST(ReportSummary, OneSentencePerProblemTheLeakFirstWithHowItEvolved) {
  // Issue 23: 288 thermal episodes and a leak of 3; ungrouped, GPU 3's sentence came six times
  // and the leak not at all.
  auto report = node(8);
  report.gpus[3].thermal_share = 0.25;
  ReportFindings findings;
  findings.diagnosed = true;
  auto thermal = finding("thermal_throttle", diagnose::Severity::Critical, 3);
  thermal.impact = 0.12;
  for (int i = 0; i < 6; ++i) {
    diagnose::Episode e;
    e.start = at(kT0 + i * 60'000);
    e.end = at(kT0 + i * 60'000 + 20'000);
    e.severity = diagnose::Severity::Critical;
    thermal.episodes.push_back(e);
  }
  thermal.start = thermal.episodes.front().start;
  thermal.end = thermal.episodes.back().end;
  thermal.active = true;
  auto leak = finding("memory_leak", diagnose::Severity::Critical, 6);
  leak.pid = 14735;
  leak.evidence["rate_bytes_per_s"] = 8.0 * 1024 * 1024 * 1024 / 60;
  leak.evidence["time_to_oom_s"] = 30;
  auto pressure = finding("memory_pressure", diagnose::Severity::Warning, 6);  // told by the leak
  pressure.summary = "memory 98 % full and growing";
  findings.findings = {thermal, thermal, pressure, leak};  // the same problem twice, too
  const auto lines = report_summary(report, findings, kUtc);
  std::vector<std::string> texts;
  for (const auto& line : lines) texts.push_back(line.text);
  ASSERT_GE(texts.size(), 3U);
  EXPECT_EQ(texts[0].rfind("GPU 6's process (PID 14735) grew 8.0 GiB/min", 0), 0U) << texts[0];
  EXPECT_EQ(texts[1], "GPU 3 spent 25 % of the 6m 00s recorded thermally throttled, at up to 66 °C; in 6 episodes, "
                      "every ~1 min since 22:13.");
  EXPECT_EQ(std::count_if(texts.begin(), texts.end(), [](const std::string& t) { return t.rfind("GPU 3", 0) == 0; }), 1);
  EXPECT_EQ(std::count_if(texts.begin(), texts.end(), [](const std::string& t) { return t.find("98 %") != std::string::npos; }), 0);
}

TEST(ReportSummary, AllHealthyAndNotDiagnosed) {
  auto report = node(2);
  ReportFindings findings;
  findings.diagnosed = true;
  auto lines = report_summary(report, findings, kUtc);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0].text, "All 2 GPUs look healthy: 99 % busy on average, 66 °C at most.");
  lines = report_summary(report, ReportFindings{}, kUtc);  // no diagnosis: no claim of health
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_EQ(report_summary(store::HistoryReport{}, findings, kUtc).size(), 0U);
}

TEST(ReportSummary, Phrases) {
  EXPECT_EQ(gpus_phrase({3}), "GPU 3");
  EXPECT_EQ(gpus_phrase({0, 1}), "GPUs 0 and 1");
  EXPECT_EQ(gpus_phrase({}), "The node");
  EXPECT_EQ(program_of("python eval_server.py --port 8000"), "eval_server.py");
  EXPECT_EQ(program_of("/usr/bin/python3 -u /opt/train.py"), "train.py");
  EXPECT_EQ(program_of("python -m torch.distributed.run x"), "torch.distributed.run");
  EXPECT_EQ(program_of("/opt/bin/llama-server -m x.gguf"), "llama-server");
  EXPECT_EQ(program_of(""), "process");
  EXPECT_EQ(growth_rate_text(350.0 * 1024 * 1024 / 60), "350 MiB/min");
}

}  // namespace summary_test
}  // namespace gpuwatch::report
