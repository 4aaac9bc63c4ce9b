#include "notify/job_message.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::notify {
namespace {

TEST(JobMessage, AFinishedJobIsAnInfoMessageWithTheText) {
  auto g = job_group("train", "job train finished after 3 h 12 m", false, "node1", std::chrono::system_clock::now());
  ASSERT_EQ(g.events.size(), 1u);
  const auto& alert = g.events[0].alert;
  EXPECT_EQ(alert.rule, "GpuwatchJobFinished");
  EXPECT_EQ(alert.severity, alerts::Severity::Info);
  EXPECT_EQ(alert.annotations.at("summary"), "job train finished after 3 h 12 m");
  EXPECT_EQ(alert.labels.at("job"), "train");
  EXPECT_EQ(g.host, "node1");
}

TEST(JobMessage, AFailedJobIsAWarning) {
  auto g = job_group("train", "job train failed (exit 3) after 12 s", true, "node1", std::chrono::system_clock::now());
  EXPECT_EQ(g.events[0].alert.rule, "GpuwatchJobFailed");
  EXPECT_EQ(g.events[0].alert.severity, alerts::Severity::Warning);
  EXPECT_EQ(g.events[0].alert.labels.at("severity"), "warning");
}

}  // namespace
}  // namespace gpuwatch::notify
