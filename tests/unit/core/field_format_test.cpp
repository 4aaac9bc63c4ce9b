#include "core/field_format.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::core {
namespace {

std::string fmt_value(Display d, FieldValue v, bool units = true) { return format_value(d, v, units); }

TEST(FieldFormat, NumbersWithUnits) {
  EXPECT_EQ(fmt_value(Display::MiB, std::uint64_t{81559ull << 20}), "81559 MiB");
  EXPECT_EQ(fmt_value(Display::MiB, std::uint64_t{81559ull << 20}, false), "81559");
  EXPECT_EQ(fmt_value(Display::Watts, 631.95), "631.95 W");
  EXPECT_EQ(fmt_value(Display::Watts, 700.0), "700.00 W");
  EXPECT_EQ(fmt_value(Display::Watts, 39.32, false), "39.32");
  EXPECT_EQ(fmt_value(Display::MHz, std::uint64_t{1980000000}), "1980 MHz");
  EXPECT_EQ(fmt_value(Display::Percent, 1.0), "100 %");
  EXPECT_EQ(fmt_value(Display::Percent, 0.07), "7 %");
  EXPECT_EQ(fmt_value(Display::Percent2, 1.0), "100.00 %");
  EXPECT_EQ(fmt_value(Display::Microseconds, 15814.595384), "15814595384 us");
  EXPECT_EQ(fmt_value(Display::Microseconds, 0.0), "0 us");
  EXPECT_EQ(fmt_value(Display::Milliseconds, 0.012), "12 ms");
  EXPECT_EQ(fmt_value(Display::Seconds, 12.0), "12 seconds");
  EXPECT_EQ(fmt_value(Display::WattsPerSecond, 5.0), "5.00 W/s");
  EXPECT_EQ(fmt_value(Display::Joules, 1.5), "1.500 J");
  EXPECT_EQ(fmt_value(Display::KBps, 2048.0), "2 KB/s");
  EXPECT_EQ(fmt_value(Display::Integer, std::uint64_t{4000}), "4000");
  EXPECT_EQ(fmt_value(Display::Celsius, std::int64_t{59}), "59");
}

TEST(FieldFormat, WordsAndCodes) {
  EXPECT_EQ(fmt_value(Display::EnabledDisabled, true), "Enabled");
  EXPECT_EQ(fmt_value(Display::EnabledDisabled, false), "Disabled");
  EXPECT_EQ(fmt_value(Display::ActiveNotActive, false), "Not Active");
  EXPECT_EQ(fmt_value(Display::ActiveNotActive, true), "Active");
  EXPECT_EQ(fmt_value(Display::YesNo, false), "No");
  EXPECT_EQ(fmt_value(Display::YesNo, true), "Yes");
  EXPECT_EQ(fmt_value(Display::PState, std::int64_t{8}), "P8");
  EXPECT_EQ(fmt_value(Display::ComputeMode, std::int64_t{0}), "Default");
  EXPECT_EQ(fmt_value(Display::ComputeMode, std::int64_t{3}), "Exclusive_Process");
  EXPECT_EQ(fmt_value(Display::Text, std::string("9.0")), "9.0");
  EXPECT_EQ(fmt_value(Display::GpuOperationMode, std::int64_t{0}), "All On");
  EXPECT_EQ(fmt_value(Display::GpuOperationMode, std::int64_t{2}), "Low Double Precision");
  EXPECT_EQ(fmt_value(Display::DriverModel, std::int64_t{1}), "TCC");
}

TEST(FieldFormat, Hex) {
  EXPECT_EQ(fmt_value(Display::Hex64, std::uint64_t{0x1FF}), "0x00000000000001FF");
  EXPECT_EQ(fmt_value(Display::Hex32, std::uint64_t{0x233010DE}), "0x233010DE");
  EXPECT_EQ(fmt_value(Display::Hex16, std::uint64_t{0}), "0x0000");
  EXPECT_EQ(fmt_value(Display::Hex8, std::uint64_t{0x83}), "0x83");
  EXPECT_EQ(fmt_value(Display::HexShort, std::uint64_t{3}), "0x3");
}

TEST(FieldFormat, TimestampIsLocalTimeWithMilliseconds) {
  auto t = std::chrono::system_clock::from_time_t(0) + std::chrono::milliseconds(1234);
  std::string s = format_timestamp(t);
  ASSERT_EQ(s.size(), 23u);
  EXPECT_EQ(s.substr(16), ":01.234");
  EXPECT_EQ(s[4], '/');
}

TEST(FieldFormat, AbsentCells) {
  Snapshot snap;
  snap.error_strings[26] = "Requested functionality has been deprecated";
  snap.error_strings[4] = "Insufficient Permissions";
  const auto& power = field_info(FieldId::PowerDraw);
  EXPECT_EQ(format_cell(power, FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3}), snap), "[N/A]");
  EXPECT_EQ(format_cell(power, FieldReading::absent(FieldStatus::FunctionMissing, core::ReadError{core::ErrorReason::FunctionMissing, 13}), snap), "[N/A]");
  EXPECT_EQ(format_cell(power, FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::Deprecated, 26}), snap),
            "[Requested functionality has been deprecated]");
  EXPECT_EQ(format_cell(power, FieldReading::absent(FieldStatus::NoPermission, core::ReadError{core::ErrorReason::NoPermission, 4}), snap), "[Insufficient Permissions]");
  EXPECT_EQ(format_cell(field_info(FieldId::TemperatureMemory), FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3}), snap),
            "N/A");
  EXPECT_EQ(format_cell(power, FieldReading::of(1.5), snap, CsvStyle{false}), "1.50");
}

}  // namespace
}  // namespace gpuwatch::core
