#include "diagnose/finding_groups.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpuwatch::diagnose {
namespace finding_groups_test {  // this test file's helpers (unity builds: no clash with another file's)

using std::chrono::seconds;
using Clock = std::chrono::system_clock;

// 2026-11-30 00:00:00 UTC, a Monday.
const Clock::time_point kT0 = Clock::time_point(seconds(1795996800));

Finding episode(std::string kind, unsigned gpu, double start_s, double length_s, Severity severity = Severity::Warning,
                std::optional<double> impact = std::nullopt) {
  Finding f;
  f.kind = std::move(kind);
  f.gpus = {gpu};
  f.uuids = {"GPU-" + std::to_string(gpu)};
  f.severity = severity;
  f.start = kT0 + seconds(static_cast<long>(start_s));
  f.end = f.start + seconds(static_cast<long>(length_s));
  f.active = false;
  f.impact = impact;
  f.summary = "one episode";
  f.detail = "one episode's detail";
  return f;
}

TimeRange day() { return {kT0, kT0 + seconds(86399)}; }  // Monday, all day

// Thermal throttling every 5 min for the whole day, 60 s each, hotter in the afternoon.
std::vector<Finding> thermal_day(double hottest_c = 93) {
  std::vector<Finding> out;
  for (int i = 0; i < 288; ++i) {
    auto f = episode("thermal_throttle", 3, i * 300.0, 60, Severity::Critical, 0.12);
    f.evidence["max_temperature_c"] = i == 200 ? hottest_c : 90;
    if (i == 200) f.impact = 0.2;
    out.push_back(f);
  }
  return out;
}

TEST(DiagnoseFindingGroups, RecurringEpisodesAreOneFindingWithCountShareAndRecurrence) {
  const auto grouped = group_findings(thermal_day(), day(), {.utc = true});
  ASSERT_EQ(grouped.size(), 1U);
  const auto& g = grouped.front();
  EXPECT_EQ(g.kind, "thermal_throttle");
  EXPECT_EQ(g.episodes.size(), 288U);
  ASSERT_TRUE(g.share.has_value());
  EXPECT_NEAR(*g.share, 288 * 60.0 / 86399, 1e-9);  // 20 %
  EXPECT_EQ(g.start, kT0);
  EXPECT_EQ(g.end, kT0 + seconds(287 * 300 + 60));
  EXPECT_FALSE(g.active);
  // The worst episode's numbers (highest impact), and the evolution in words.
  EXPECT_DOUBLE_EQ(*g.impact, 0.2);
  EXPECT_DOUBLE_EQ(g.evidence.at("max_temperature_c"), 93);
  EXPECT_EQ(g.summary, "thermal throttling in 288 episodes covering 20 % of the day, every ~5 min since 00:00, up to 93 °C");
  EXPECT_EQ(g.detail.rfind("In 288 episodes covering 20 % of the day, every ~5 min since 00:00. The worst, 16:40 – 16:41: "
                           "one episode's detail", 0), 0U) << g.detail;
  EXPECT_EQ(g.summary.find('\n'), std::string::npos);  // one line
}

TEST(DiagnoseFindingGroups, SeverityIsTheWorstAndActiveIsAnyEpisodes) {
  std::vector<Finding> findings = {episode("power_cap", 1, 0, 100), episode("power_cap", 1, 1000, 100, Severity::Critical),
                                   episode("power_cap", 1, 5000, 50)};
  findings.back().active = true;
  const auto grouped = group_findings(findings, day(), {.utc = true});
  ASSERT_EQ(grouped.size(), 1U);
  EXPECT_EQ(grouped[0].severity, Severity::Critical);
  EXPECT_TRUE(grouped[0].active);
  EXPECT_EQ(grouped[0].end, kT0 + seconds(5050));
  EXPECT_NE(grouped[0].summary.find("in 3 episodes"), std::string::npos);
  EXPECT_NE(grouped[0].summary.find("since 00:00"), std::string::npos);  // still active: "since"
}

TEST(DiagnoseFindingGroups, OverlappingEpisodesCountOnceInTheShare) {
  std::vector<Finding> findings = {episode("memory_leak", 6, 0, 4320), episode("memory_leak", 6, 2160, 4320)};
  findings[0].pid = 10;
  findings[1].pid = 11;
  const auto grouped = group_findings(findings, day());
  ASSERT_EQ(grouped.size(), 1U);
  EXPECT_NEAR(*grouped[0].share, 6480.0 / 86399, 1e-9);  // 0..6480 s, not 8640 s
}

TEST(DiagnoseFindingGroups, TheKeyIsKindGpusAndJobNotThePid) {
  std::vector<Finding> findings;
  for (std::uint32_t pid : {100U, 200U, 300U}) {  // a leak restarting with a new PID each time
    auto f = episode("memory_leak", 6, (pid / 100) * 600.0, 120, Severity::Critical);
    f.pid = pid;
    f.evidence["rate_bytes_per_s"] = pid == 200 ? 3e8 : 1e8;
    findings.push_back(f);
  }
  findings.push_back(episode("memory_leak", 5, 0, 60));          // another GPU
  findings.push_back(episode("memory_pressure", 6, 0, 60));      // another kind
  auto on_two = episode("imbalance", 0, 0, 60);
  on_two.gpus = {1, 0};
  auto on_two_again = episode("imbalance", 0, 900, 60);
  on_two_again.gpus = {0, 1};  // the same GPUs in another order: the same set
  auto of_a_job = episode("imbalance", 0, 1800, 60);
  of_a_job.gpus = {0, 1};
  of_a_job.job = JobRef{"slurm:4711", "job 4711"};
  findings.insert(findings.end(), {on_two, on_two_again, of_a_job});
  const auto grouped = group_findings(findings, day());
  ASSERT_EQ(grouped.size(), 5U);
  std::size_t leaks_on_6 = 0;
  for (const auto& g : grouped) {
    if (g.kind == "memory_leak" && g.gpus == std::vector<unsigned>{6}) {
      ++leaks_on_6;
      EXPECT_EQ(g.episodes.size(), 3U);
      EXPECT_EQ(g.pid, 200U);  // the worst episode's (fastest growth)
      EXPECT_NE(g.summary.find("growing up to"), std::string::npos) << g.summary;
    }
    if (g.kind == "imbalance") EXPECT_EQ(g.episodes.size(), g.job ? 1U : 2U);
  }
  EXPECT_EQ(leaks_on_6, 1U);
}

TEST(DiagnoseFindingGroups, ASingleEpisodeKeepsItsWordsWithItsEpisodeAndShare) {
  auto f = episode("xid", 6, 3600, 0, Severity::Info);
  f.summary = "Xid 31: GPU memory page fault";
  const auto grouped = group_findings(std::vector<Finding>{f}, day());
  ASSERT_EQ(grouped.size(), 1U);
  EXPECT_EQ(grouped[0].summary, f.summary);
  EXPECT_EQ(grouped[0].detail, f.detail);
  ASSERT_EQ(grouped[0].episodes.size(), 1U);
  EXPECT_EQ(grouped[0].episodes[0].start, f.start);
  ASSERT_TRUE(grouped[0].share.has_value());
  EXPECT_DOUBLE_EQ(*grouped[0].share, 0.0);
  // Grouping again changes nothing.
  const auto again = group_findings(grouped, day());
  ASSERT_EQ(again.size(), 1U);
  EXPECT_EQ(again[0].summary, f.summary);
  EXPECT_EQ(again[0].episodes.size(), 1U);
}

TEST(DiagnoseFindingGroups, AnEmptyRangeHasNoShare) {
  const auto f = episode("power_cap", 0, 0, 0);
  const auto grouped = group_findings(std::vector<Finding>{f}, {kT0, kT0});
  ASSERT_EQ(grouped.size(), 1U);
  EXPECT_FALSE(grouped[0].share.has_value());  // absent, not zero
}

std::vector<Episode> with_impacts(std::vector<double> impacts, double every_s = 300) {
  std::vector<Episode> out;
  for (std::size_t i = 0; i < impacts.size(); ++i) {
    Episode e;
    e.start = kT0 + seconds(static_cast<long>(i * every_s));
    e.end = e.start + seconds(30);
    e.impact = impacts[i];
    out.push_back(e);
  }
  return out;
}

TEST(DiagnoseFindingGroups, TrendCompareTheFirstAndLastThirds) {
  EXPECT_EQ(trend_text(with_impacts({0.1, 0.1, 0.1, 0.12, 0.15, 0.2, 0.2, 0.25, 0.3})), "getting worse");
  EXPECT_EQ(trend_text(with_impacts({0.3, 0.3, 0.25, 0.2, 0.1, 0.1, 0.05, 0.05, 0.05})), "easing");
  EXPECT_EQ(trend_text(with_impacts({0.1, 0.11, 0.1, 0.1, 0.1, 0.11, 0.1, 0.1, 0.1})), "");
  EXPECT_EQ(trend_text(with_impacts({0.1, 0.5, 0.9})), "");  // too few episodes to tell
  // Without impacts, by the peak: a lower time to OOM is worse.
  auto leaks = with_impacts({0, 0, 0, 0, 0, 0});
  for (std::size_t i = 0; i < leaks.size(); ++i) {
    leaks[i].impact.reset();
    leaks[i].evidence["time_to_oom_s"] = 600.0 - 100.0 * static_cast<double>(i);
  }
  EXPECT_EQ(trend_text(leaks), "getting worse");
}

TEST(DiagnoseFindingGroups, RecurrenceIsSaidOnlyWhenRegular) {
  EXPECT_EQ(recurrence_text(with_impacts({1, 1, 1, 1}, 300)), "every ~5 min");
  EXPECT_EQ(recurrence_text(with_impacts({1, 1, 1, 1}, 30)), "every ~30 s");
  EXPECT_EQ(recurrence_text(with_impacts({1, 1, 1, 1}, 7200)), "every ~2 h");
  EXPECT_EQ(recurrence_text(with_impacts({1, 1}, 300)), "");  // two episodes are no rhythm
  auto irregular = with_impacts({1, 1, 1, 1, 1});
  irregular[1].start = kT0 + seconds(10);
  irregular[3].start = kT0 + seconds(3000);
  EXPECT_EQ(recurrence_text(irregular), "");
}

TEST(DiagnoseFindingGroups, AProblemThatEndedLongAgoSaysBetweenAndAnOlderStartItsDay) {
  std::vector<Finding> findings = {episode("power_cap", 1, 3600, 60), episode("power_cap", 1, 7200, 60),
                                   episode("power_cap", 1, 9000, 60)};
  auto grouped = group_findings(findings, day(), {.utc = true});
  ASSERT_EQ(grouped.size(), 1U);
  EXPECT_NE(grouped[0].summary.find("between 01:00 and 02:31"), std::string::npos) << grouped[0].summary;
  // Over a week that ends on Sunday, a start on Monday is "Mon 01:00".
  const TimeRange week{kT0, kT0 + seconds(6 * 86400 + 3600)};
  findings.back().active = true;
  grouped = group_findings(findings, week, {.utc = true});
  EXPECT_NE(grouped[0].summary.find("of the week"), std::string::npos) << grouped[0].summary;
  EXPECT_NE(grouped[0].summary.find("since Mon 01:00"), std::string::npos) << grouped[0].summary;
}

TEST(DiagnoseFindingGroups, EpisodeLinesListEveryEpisode) {
  const auto grouped = group_findings(thermal_day(), day(), {.utc = true});
  const auto lines = episode_lines(grouped.front(), {.utc = true});
  ASSERT_EQ(lines.size(), 288U);
  EXPECT_EQ(lines[0], "2026-11-30 00:00:00 – 00:01:00 (1m 00s)  critical  impact 12 %  up to 90 °C");
  EXPECT_NE(lines[200].find("93 °C"), std::string::npos);
}

}  // namespace finding_groups_test
}  // namespace gpuwatch::diagnose
