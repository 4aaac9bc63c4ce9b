#include "diagnose/finding_changes.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::diagnose {
namespace finding_changes_test {  // this test file's helpers (unity builds: no clash with another file's)

Finding finding(std::string kind, unsigned gpu, Severity severity = Severity::Warning) {
  Finding f;
  f.kind = std::move(kind);
  f.gpus = {gpu};
  f.severity = severity;
  return f;
}

TEST(DiagnoseFindingChanges, NewAndEndedFindingsAreTold) {
  std::vector<Finding> before = {finding("thermal_throttle", 3), finding("memory_leak", 6)};
  std::vector<Finding> now = {finding("memory_leak", 6), finding("idle_process", 1)};
  auto changes = finding_changes(before, now);
  ASSERT_EQ(changes.started.size(), 1U);
  EXPECT_EQ(changes.started[0].kind, "idle_process");
  ASSERT_EQ(changes.ended.size(), 1U);
  EXPECT_EQ(changes.ended[0].kind, "thermal_throttle");
}

TEST(DiagnoseFindingChanges, TheSameKindOnAnotherGpuOrProcessIsAnotherFinding) {
  std::vector<Finding> before = {finding("memory_leak", 6)};
  auto other_gpu = finding("memory_leak", 5);
  auto other_pid = finding("memory_leak", 6);
  other_pid.pid = 42;
  std::vector<Finding> now = {before[0], other_gpu, other_pid};
  EXPECT_EQ(finding_changes(before, now).started.size(), 2U);
  EXPECT_TRUE(finding_changes(now, now).started.empty());
  EXPECT_TRUE(finding_changes(now, now).ended.empty());
}

TEST(DiagnoseFindingChanges, AFindingThatGetsWorseIsToldAgain) {
  std::vector<Finding> before = {finding("memory_pressure", 2, Severity::Info)};
  std::vector<Finding> now = {finding("memory_pressure", 2, Severity::Warning)};
  auto changes = finding_changes(before, now);
  ASSERT_EQ(changes.started.size(), 1U);
  EXPECT_EQ(changes.started[0].severity, Severity::Warning);
  EXPECT_TRUE(changes.ended.empty());
}

}  // namespace finding_changes_test
}  // namespace gpuwatch::diagnose
