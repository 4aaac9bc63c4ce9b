// How the report writes energy, temperature, numbers and times (report/units.hpp).
#include "report/units.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace gpuwatch::report {
namespace {

TEST(ReportUnits, EnergyInWhOrKwhWithThreeSignificantDigits) {
  EXPECT_EQ(energy_text(std::nullopt), "N/A");
  EXPECT_EQ(energy_text(0.0), "0.00 Wh");
  EXPECT_EQ(energy_text(2e-08), "< 0.01 Wh");  // was "2e-08 kWh"
  EXPECT_EQ(energy_text(2e-05), "0.02 Wh");   // was "2e-05 kWh"
  EXPECT_EQ(energy_text(0.00042), "0.42 Wh");
  EXPECT_EQ(energy_text(0.0123), "12.3 Wh");
  EXPECT_EQ(energy_text(0.456), "456 Wh");
  EXPECT_EQ(energy_text(0.9996), "1.00 kWh");  // not "1,000 Wh"
  EXPECT_EQ(energy_text(1.234), "1.23 kWh");
  EXPECT_EQ(energy_text(12.35), "12.3 kWh");  // 12.35 is 12.3499... in binary
  EXPECT_EQ(energy_text(1234.4), "1,234 kWh");
}

TEST(ReportUnits, TemperatureWithTheDegreeSign) {
  EXPECT_EQ(temperature_text(66.0), "66 °C");
  EXPECT_EQ(temperature_text(std::nullopt), "N/A");
}

TEST(ReportUnits, GroupedNumbersAndShares) {
  EXPECT_EQ(grouped_number(1120), "1,120");
  EXPECT_EQ(grouped_number(1980.4), "1,980");
  EXPECT_EQ(grouped_number(999), "999");
  EXPECT_EQ(grouped_number(1234567.891, 1), "1,234,567.9");
  EXPECT_EQ(grouped_number(-1000), "-1,000");
  EXPECT_EQ(grouped_number(-0.2), "0");
  EXPECT_EQ(share_text(0.68), "68 %");
  EXPECT_EQ(share_text(0.001), "< 1 %");
  EXPECT_EQ(share_text(0), "0 %");
}

TEST(ReportUnits, TimesAsStatusWritesThemInUtcOrLocal) {
  const std::int64_t t = 1'700'000'000'123;  // 2023-11-14 22:13:20.123 UTC
  EXPECT_EQ(time_text(t, {true}), "2023-11-14 22:13:20");
  EXPECT_EQ(time_of_day_text(t, {true}), "22:13:20");
  EXPECT_EQ(zone_text(t, {true}), "UTC");
  EXPECT_EQ(span_text(t, t + 65'000, {true}), "2023-11-14 22:13:20 – 22:14:25");
  EXPECT_EQ(span_text(t, t + 7'200'000, {true}), "2023-11-14 22:13:20 – 2023-11-15 00:13:20");

  // The local zone: TZ set for this test, restored after.
  const char* before = std::getenv("TZ");
  const std::string saved = before ? before : "";
  setenv("TZ", "UTC-1", 1);  // POSIX: one hour east of UTC
  tzset();
  EXPECT_EQ(time_text(t, {false}), "2023-11-14 23:13:20");
  EXPECT_EQ(zone_text(t, {false}), "UTC+01:00");
  if (before) setenv("TZ", saved.c_str(), 1); else unsetenv("TZ");
  tzset();
}

}  // namespace
}  // namespace gpuwatch::report
