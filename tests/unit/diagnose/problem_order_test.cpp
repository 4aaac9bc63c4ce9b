#include "diagnose/problem_order.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpuwatch::diagnose {
namespace problem_order_test {  // this test file's helpers (unity builds: no clash with another file's)

Finding problem(std::string kind, unsigned gpu, Severity severity, std::optional<double> impact = std::nullopt,
                bool active = false) {
  Finding f;
  f.kind = std::move(kind);
  f.gpus = {gpu};
  f.severity = severity;
  f.impact = impact;
  f.active = active;
  f.summary = f.kind + " on " + std::to_string(gpu);
  return f;
}

TEST(DiagnoseProblemOrder, AnOomOnItsWayComesBeforeThrottling) {
  auto throttle = problem("thermal_throttle", 3, Severity::Critical, 0.16, true);
  auto leak = problem("memory_leak", 6, Severity::Critical, std::nullopt, true);  // still growing
  leak.evidence["time_to_oom_s"] = 240;
  auto capped = problem("power_cap", 1, Severity::Warning, 0.10, true);
  auto lost = problem("gpu_lost", 2, Severity::Critical);
  const auto ordered = most_urgent_first(std::vector<Finding>{capped, throttle, leak, lost});
  ASSERT_EQ(ordered.size(), 4U);
  // Urgent kinds first (critical, active, impact), then the rest (critical before warning).
  EXPECT_EQ(ordered[0].kind, "memory_leak");
  EXPECT_EQ(ordered[1].kind, "gpu_lost");
  EXPECT_EQ(ordered[2].kind, "thermal_throttle");
  EXPECT_EQ(ordered[3].kind, "power_cap");
  EXPECT_EQ(urgency_rank(leak), 0);
  EXPECT_EQ(urgency_rank(throttle), 1);
  EXPECT_EQ(urgency_rank(problem("collective_hang", 0, Severity::Critical)), 0);  // a job's hang
}

TEST(DiagnoseProblemOrder, WithinARankActiveThenImpactDecide) {
  const auto ended = problem("power_cap", 1, Severity::Warning, 0.30);
  const auto small = problem("power_cap", 2, Severity::Warning, 0.05, true);
  const auto big = problem("thermal_throttle", 4, Severity::Warning, 0.20, true);
  const auto ordered = most_urgent_first(std::vector<Finding>{ended, small, big});
  EXPECT_EQ(ordered[0].gpus, std::vector<unsigned>{4});
  EXPECT_EQ(ordered[1].gpus, std::vector<unsigned>{2});
  EXPECT_EQ(ordered[2].gpus, std::vector<unsigned>{1});
}

TEST(DiagnoseProblemOrder, OneSentencePerProblemNoRepeatNoInfoNoConsequence) {
  auto leak = problem("memory_leak", 6, Severity::Critical);
  leak.summary = "memory leak in 303 episodes";
  const auto pressure = problem("memory_pressure", 6, Severity::Warning);  // the leak's consequence
  const auto pressure_elsewhere = problem("memory_pressure", 5, Severity::Warning);
  const auto throttle = problem("thermal_throttle", 3, Severity::Critical, 0.12);
  const auto again = throttle;  // the same problem twice (ungrouped input)
  const auto info = problem("xid", 6, Severity::Info);
  const auto sentences =
      problem_sentences(std::vector<Finding>{throttle, pressure, info, again, leak, pressure_elsewhere});
  ASSERT_EQ(sentences.size(), 3U);
  EXPECT_EQ(sentences[0], "GPU 6: memory leak in 303 episodes.");
  EXPECT_EQ(sentences[1], "GPU 3: thermal_throttle on 3.");
  EXPECT_EQ(sentences[2], "GPU 5: memory_pressure on 5.");
}

}  // namespace problem_order_test
}  // namespace gpuwatch::diagnose
