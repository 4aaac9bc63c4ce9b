#include "host_signals/pressure.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::host_signals {
namespace pressure_test {

TEST(HostPressure, ReadsSomeAndFull) {
  const Pressure p = parse_pressure(
      "some avg10=48.49 avg60=45.33 avg300=34.12 total=7426987178\n"
      "full avg10=0.44 avg60=0.02 avg300=0.21 total=146332448\n");
  ASSERT_TRUE(p.some);
  ASSERT_TRUE(p.full);
  EXPECT_DOUBLE_EQ(p.some->avg10_percent, 48.49);
  EXPECT_DOUBLE_EQ(p.some->avg300_percent, 34.12);
  EXPECT_EQ(p.some->total_us, 7426987178u);
  EXPECT_DOUBLE_EQ(p.full->avg10_percent, 0.44);
}

TEST(HostPressure, CpuBefore513HasNoFullLineAndItIsAbsent) {
  const Pressure p = parse_pressure("some avg10=1.00 avg60=2.00 avg300=3.00 total=42\n");
  ASSERT_TRUE(p.some);
  EXPECT_FALSE(p.full);
}

TEST(HostPressure, EmptyOrBrokenLinesAreAbsent) {
  EXPECT_FALSE(parse_pressure("").some);
  EXPECT_FALSE(parse_pressure("some avg10=1.00 avg60=2.00\n").some);  // cut short
  EXPECT_FALSE(parse_pressure("some avg10=x avg60=2.00 avg300=3.00 total=1\n").some);
}

}  // namespace pressure_test
}  // namespace gpuwatch::host_signals
