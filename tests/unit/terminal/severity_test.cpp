#include "terminal/severity.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::terminal {
namespace {

// Issue 9: 39, 65 and 92 C were all the same bold red. Against an H100's 89 C slowdown
// threshold they are now plain, plain and red; 74 C (15 below) is yellow.
TEST(Severity, issue_9_temperature_against_the_gpus_own_slowdown_threshold) {
  EXPECT_EQ(temperature_severity(39, 89), Severity::Ok);
  EXPECT_EQ(temperature_severity(65, 89), Severity::Ok);
  EXPECT_EQ(temperature_severity(73, 89), Severity::Ok);
  EXPECT_EQ(temperature_severity(74, 89), Severity::Warn);
  EXPECT_EQ(temperature_severity(83, 89), Severity::Warn);
  EXPECT_EQ(temperature_severity(84, 89), Severity::Critical);
  EXPECT_EQ(temperature_severity(92, 89), Severity::Critical);
  // A card with a lower threshold is in trouble sooner.
  EXPECT_EQ(temperature_severity(80, 83), Severity::Critical);
}

TEST(Severity, TemperatureWithoutThresholdUsesFixedLimits) {
  EXPECT_EQ(temperature_severity(74, std::nullopt), Severity::Ok);
  EXPECT_EQ(temperature_severity(75, std::nullopt), Severity::Warn);
  EXPECT_EQ(temperature_severity(85, std::nullopt), Severity::Critical);
  EXPECT_EQ(temperature_severity(std::nullopt, 89), Severity::Ok);  // absent: no severity
}

TEST(Severity, MemoryAndPowerAgainstTheirLimits) {
  EXPECT_EQ(memory_severity(62315, 81559), Severity::Ok);  // 76 %
  EXPECT_EQ(memory_severity(66000, 81559), Severity::Warn);
  EXPECT_EQ(memory_severity(78000, 81559), Severity::Critical);
  EXPECT_EQ(memory_severity(0, 0), Severity::Ok);  // no total: no ratio
  EXPECT_EQ(power_severity(583, 700), Severity::Ok);
  EXPECT_EQ(power_severity(640, 700), Severity::Warn);
  EXPECT_EQ(power_severity(699, 700), Severity::Critical);
  EXPECT_EQ(power_severity(699, std::nullopt), Severity::Ok);
}

TEST(Severity, ColoursArePlainYellowRed) {
  EXPECT_EQ(severity_color(Severity::Ok), Color::Plain);
  EXPECT_EQ(severity_color(Severity::Warn), Color::Yellow);
  EXPECT_EQ(severity_color(Severity::Critical), Color::BoldRed);
}

}  // namespace
}  // namespace gpuwatch::terminal
