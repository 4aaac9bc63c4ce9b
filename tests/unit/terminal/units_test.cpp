#include "terminal/units.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::terminal {
namespace {

using core::FieldReading;
using core::FieldStatus;

TEST(TerminalUnits, ConvertsBaseUnitsToWholeDisplayUnits) {
  EXPECT_EQ(whole_watts(FieldReading::of(631.95)), 631);  // truncated like mW / 1000
  EXPECT_EQ(whole_watts(FieldReading::of(69000 * 0.001)), 69);
  EXPECT_EQ(whole_percent(FieldReading::of(0.995)), 100);
  EXPECT_EQ(whole_percent(FieldReading::of(0.0)), 0);
  EXPECT_EQ(whole_mhz(FieldReading::of(1980e6)), 1980);
  EXPECT_EQ(whole_mib(FieldReading::of(std::uint64_t{81559} * 1024 * 1024 + 1023)), 81559);
  EXPECT_EQ(whole_number(FieldReading::of(std::int64_t{63})), 63);
}

TEST(TerminalUnits, AbsentStaysAbsent) {
  auto na = FieldReading::absent(FieldStatus::NotSupported, core::ReadError{core::ErrorReason::NotSupported, 3});
  EXPECT_FALSE(whole_watts(na).has_value());
  EXPECT_FALSE(whole_percent(na).has_value());
  EXPECT_FALSE(whole_mhz(na).has_value());
  EXPECT_FALSE(whole_mib(na).has_value());
  EXPECT_FALSE(whole_percent(std::optional<double>()).has_value());
  EXPECT_FALSE(whole_mib(std::optional<std::uint64_t>()).has_value());
}

}  // namespace
}  // namespace gpuwatch::terminal
