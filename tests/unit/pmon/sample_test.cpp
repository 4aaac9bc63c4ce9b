#include "pmon/sample.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::pmon {
namespace {

TEST(PmonSample, OneRowPerProcessWithUtilizationWhereSampled) {
  core::Snapshot snapshot;
  core::DeviceSnapshot d;
  d.processes_status = core::FieldStatus::Ok;
  core::ProcessSample memhog;
  memhog.pid = 11327;
  memhog.name = "/usr/local/bin/memhog";
  core::ProcessSample burn;
  burn.pid = 11345;
  burn.name = "gpu_burn";
  burn.sm_ratio = 0.99;
  burn.memory_ratio = 0.10;
  d.processes = {memhog, burn};
  snapshot.devices = {d};
  auto rows = pmon_rows(snapshot, nullptr);
  ASSERT_EQ(rows.size(), 2u);
  PmonOptions options;
  EXPECT_EQ(pmon_row(options, rows[0]),
            "    0      11327     C      -      -      -      -      -      -    memhog         \n");
  EXPECT_EQ(pmon_row(options, rows[1]),
            "    0      11345     C     99     10      -      -      -      -    gpu_burn       \n");
}

TEST(PmonSample, IdleGpuGivesDashRowAndLookupFillsMissingNames) {
  core::Snapshot snapshot;
  snapshot.devices.resize(2);
  snapshot.devices[1].index = 1;
  core::ProcessSample nameless;
  nameless.pid = 77;
  nameless.type = core::ProcessType::Graphics;
  snapshot.devices[1].processes = {nameless};
  auto rows = pmon_rows(snapshot, [](unsigned pid) { return std::optional<std::string>("comm-" + std::to_string(pid)); });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].pid.has_value());
  EXPECT_EQ(rows[1].command, "comm-77");
  EXPECT_EQ(rows[1].type, core::ProcessType::Graphics);
}

}  // namespace
}  // namespace gpuwatch::pmon
