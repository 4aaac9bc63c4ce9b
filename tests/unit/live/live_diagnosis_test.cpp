// serve's live diagnosis (live/live_diagnosis.hpp): primed with the recorded history (issue 23),
// its findings are there before the first tick, and the ticks go on from them.
#include "live/live_diagnosis.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "unit/diagnose/sim_feed.hpp"

namespace gpuwatch::live {
namespace live_diagnosis_test {  // this test file's helpers (unity builds: no clash with another file's)

using diagnose::testing::at_s;
using diagnose::testing::SimFeed;

bool has(const std::vector<diagnose::Finding>& findings, const std::string& kind, unsigned gpu) {
  return std::any_of(findings.begin(), findings.end(), [&](const diagnose::Finding& f) {
    return f.kind == kind && std::find(f.gpus.begin(), f.gpus.end(), gpu) != f.gpus.end();
  });
}

TEST(LiveDiagnosis, APrimedEngineHasItsFindingsBeforeTheFirstTick) {
  const SimFeed feed = SimFeed::builtin("demo");  // GPU 6 leaks from 30 s on
  diagnose::Diagnoser primed;
  for (int t = 0; t <= 200; ++t) primed.observe(feed.snapshot(t));
  ASSERT_TRUE(has(primed.findings(), "memory_leak", 6));

  int next = 201;
  LiveDiagnosis live([&] { return DiagnosisInput{feed.snapshot(next++), {}, {}}; }, std::chrono::seconds(1), {}, std::move(primed));
  EXPECT_TRUE(has(live.active(), "memory_leak", 6));  // at start, not minutes later
  for (int i = 0; i < 5; ++i) live.tick(at_s(next));
  EXPECT_TRUE(has(live.active(), "memory_leak", 6));
}

TEST(LiveDiagnosis, UnprimedStartsWithNothing) {
  LiveDiagnosis live([] { return DiagnosisInput{}; }, std::chrono::seconds(1));
  EXPECT_TRUE(live.active().empty());
}

}  // namespace live_diagnosis_test
}  // namespace gpuwatch::live
