// The hardware checks (diagnose/hardware_checks.cpp) on hand-made snapshots: persistence_off.
// (ECC, remaps, Xids and lost GPUs: diagnoser_test.cpp and the built-in scenarios.)
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "diagnose/diagnoser.hpp"
#include "snapshot_builder.hpp"

namespace gpuwatch::diagnose::testing {
namespace hardware_checks_test {  // this test file's helpers (unity builds: no clash with another file's)

constexpr double kGiB = 1024.0 * 1024 * 1024;

// A busy, healthy GPU whose persistence mode reads MODE (nullopt: NotSupported, as on Windows).
core::Snapshot with_persistence(double t, std::optional<bool> mode) {
  auto s = make_snapshot(t, {.util = 0.9, .power_w = 500.0, .used_bytes = 20 * kGiB, .process_bytes = 20 * kGiB});
  auto& reading = s.devices.front().get(core::FieldId::PersistenceMode);
  if (mode) {
    reading = core::FieldReading::of(*mode);
  } else {
    reading = core::FieldReading{};
    reading.status = core::FieldStatus::NotSupported;
  }
  return s;
}

std::optional<Finding> persistence_finding(const std::vector<Finding>& findings) {
  const auto it = std::find_if(findings.begin(), findings.end(), [](const Finding& f) { return f.kind == "persistence_off"; });
  return it == findings.end() ? std::nullopt : std::optional<Finding>(*it);
}

TEST(DiagnoseHardwareChecks, PersistenceOffIsAnInfoFindingFromTheFirstSample) {
  Diagnoser d;
  d.observe(with_persistence(0, false));
  const auto f = persistence_finding(d.findings());
  ASSERT_TRUE(f);  // a setting read, not a measurement: nothing to wait for
  EXPECT_EQ(f->severity, Severity::Info);
  EXPECT_EQ(f->gpus, std::vector<unsigned>{0});
  EXPECT_EQ(f->evidence.at("persistence_mode"), 0);
  EXPECT_NE(f->summary.find("persistence mode off"), std::string::npos) << f->summary;
  EXPECT_FALSE(f->detail.empty());
  ASSERT_EQ(f->advice.size(), 2U);
  EXPECT_NE(f->advice[0].find("sudo nvidia-smi -pm 1"), std::string::npos);
  EXPECT_NE(f->advice[1].find("nvidia-persistenced"), std::string::npos);
  // Info only, whatever how long: it costs start-up time, not the running job's.
  for (int t = 1; t < 600; t += 5) d.observe(with_persistence(t, false));
  EXPECT_EQ(persistence_finding(d.findings())->severity, Severity::Info);
}

TEST(DiagnoseHardwareChecks, PersistenceOnOrNotReadSaysNothing) {
  for (const std::optional<bool> mode : {std::optional<bool>(true), std::optional<bool>()}) {
    Diagnoser d;
    for (int t = 0; t < 120; ++t) d.observe(with_persistence(t, mode));
    EXPECT_FALSE(persistence_finding(d.all_findings())) << (mode ? "on" : "not supported");
  }
  // Not read at all (a snapshot without the field): absent is not "off".
  Diagnoser d;
  for (int t = 0; t < 120; ++t)
    d.observe(make_snapshot(t, {.util = 0.9, .power_w = 500.0, .used_bytes = 20 * kGiB, .process_bytes = 20 * kGiB}));
  EXPECT_FALSE(persistence_finding(d.all_findings()));
}

TEST(DiagnoseHardwareChecks, TurningPersistenceOnEndsTheFinding) {
  Diagnoser d;
  for (int t = 0; t < 10; ++t) d.observe(with_persistence(t, false));
  ASSERT_TRUE(persistence_finding(d.findings()));
  for (int t = 10; t < 100; ++t) d.observe(with_persistence(t, true));
  EXPECT_FALSE(persistence_finding(d.findings()));
  const auto ended = persistence_finding(d.all_findings());
  ASSERT_TRUE(ended);
  EXPECT_FALSE(ended->active);
}

}  // namespace hardware_checks_test
}  // namespace gpuwatch::diagnose::testing
