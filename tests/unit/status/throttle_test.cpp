#include "status/throttle.hpp"

#include <gtest/gtest.h>

#include "core/field_table.hpp"

namespace gpuwatch::status {
namespace {

core::DeviceSnapshot with_reasons(std::uint64_t mask) {
  core::DeviceSnapshot d;
  d.get(core::FieldId::ClocksEventReasonsActive) = core::FieldReading::of(mask);
  return d;
}

TEST(Throttle, ThermalOnceForSoftwareAndHardware) {
  auto marker = throttle_marker(with_reasons(0x20 | 0x40));
  EXPECT_EQ(marker.labels, (std::vector<std::string>{"thermal"}));
  EXPECT_EQ(marker.severity, terminal::Severity::Critical);
}

TEST(Throttle, PowerCapIsAWarningHwSlowdownAndPowerBrakeAreCritical) {
  auto cap = throttle_marker(with_reasons(0x4));
  EXPECT_EQ(cap.joined(", "), "power cap");
  EXPECT_EQ(cap.severity, terminal::Severity::Warn);
  auto hw = throttle_marker(with_reasons(0x8 | 0x80));
  EXPECT_EQ(hw.joined(","), "HW slowdown,power brake");
  EXPECT_EQ(hw.severity, terminal::Severity::Critical);
}

TEST(Throttle, IdleSyncBoostAndSettingsAreNotTrouble) {
  EXPECT_TRUE(throttle_marker(with_reasons(0x1 | 0x2 | 0x10 | 0x100)).labels.empty());
  EXPECT_TRUE(throttle_marker(core::DeviceSnapshot{}).labels.empty());  // not read
}

TEST(Throttle, ActiveReasonsByFieldNameOrNothingWhenUnsupported) {
  auto active = active_throttle_reasons(with_reasons(0x5));
  ASSERT_TRUE(active.has_value());
  ASSERT_EQ(active->size(), 2u);
  EXPECT_EQ((*active)[0].key, "gpu_idle");
  EXPECT_EQ((*active)[1].key, "sw_power_cap");
  core::DeviceSnapshot unsupported;
  unsupported.get(core::FieldId::ClocksEventReasonsActive) = core::FieldReading::absent(core::FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  EXPECT_FALSE(active_throttle_reasons(unsupported).has_value());
}

// Every reason's key is a real field of the table (clocks_event_reasons.<key>).
TEST(Throttle, KeysAreFieldNames) {
  for (const auto& reason : throttle_reasons()) {
    if (reason.bit == 0x100) continue;  // display_clock_setting: no nvidia-smi field
    EXPECT_TRUE(core::find_field("clocks_event_reasons." + std::string(reason.key)).has_value()) << reason.key;
  }
}

}  // namespace
}  // namespace gpuwatch::status
