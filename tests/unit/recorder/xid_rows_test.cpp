// Xid events for the history from what a recorder observed (recorder/xid_rows.hpp).
#include "recorder/xid_rows.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace gpuwatch::recorder {
namespace {

core::Snapshot snapshot_at(std::int64_t ms) {
  core::Snapshot snapshot;
  snapshot.timestamp = std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
  for (unsigned i = 0; i < 2; ++i) {
    core::DeviceSnapshot device;
    device.index = i;
    if (i == 1) device.get(core::FieldId::Uuid) = core::FieldReading::of(std::string("GPU-one"));
    snapshot.devices.push_back(device);
  }
  return snapshot;
}

TEST(XidRows, EventsAtTheSamplesTimeWithTheGpusUuid) {
  const auto rows = xid_rows({{1, 31}, {0, 79}}, snapshot_at(5000));
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].time_ms, 5000);
  EXPECT_EQ(rows[0].gpu, 1U);
  EXPECT_EQ(rows[0].uuid, "GPU-one");
  EXPECT_EQ(rows[0].xid, 31U);
  EXPECT_FALSE(rows[1].uuid);  // not read: absent
}

TEST(XidRows, CountDiffGivesOnlyTheNewEvents) {
  XidCountDiff diff;
  const auto snapshot = snapshot_at(0);
  auto rows = diff.new_events({{1, 31, 2, 10.5}}, snapshot);
  ASSERT_EQ(rows.size(), 2U);  // two seen so far: two rows, at the latest time known
  EXPECT_EQ(rows[0].time_ms, 10'500);
  EXPECT_TRUE(diff.new_events({{1, 31, 2, 10.5}}, snapshot).empty());  // nothing new
  rows = diff.new_events({{0, 13, 1, 12.0}, {1, 31, 3, 11.0}}, snapshot);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].xid, 31U);  // by time
  EXPECT_EQ(rows[0].time_ms, 11'000);
  EXPECT_EQ(rows[1].xid, 13U);
  EXPECT_EQ(rows[1].gpu, 0U);
}

}  // namespace
}  // namespace gpuwatch::recorder
