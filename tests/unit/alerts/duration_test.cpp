#include "alerts/duration.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::alerts {
namespace {

using std::chrono::milliseconds;

TEST(AlertsDuration, PrometheusForms) {
  EXPECT_EQ(parse_duration("30s"), milliseconds(30000));
  EXPECT_EQ(parse_duration("5m"), milliseconds(300000));
  EXPECT_EQ(parse_duration("1h"), milliseconds(3600000));
  EXPECT_EQ(parse_duration("1d"), milliseconds(86400000));
  EXPECT_EQ(parse_duration("1h30m"), milliseconds(5400000));
  EXPECT_EQ(parse_duration("500ms"), milliseconds(500));
  EXPECT_EQ(parse_duration("0s"), milliseconds(0));
  EXPECT_EQ(parse_duration("1w"), milliseconds(7LL * 86400000));
}

TEST(AlertsDuration, RejectsWhatPrometheusRejects) {
  for (const char* bad : {"", "5", "5 minutes", "5min", "1.5h", "30m1h", "-5m", "m", "5m ", "1h1h"})
    EXPECT_FALSE(parse_duration(bad)) << bad;
}

TEST(AlertsDuration, FormatsShortest) {
  EXPECT_EQ(format_duration(milliseconds(300000)), "5m");
  EXPECT_EQ(format_duration(milliseconds(5400000)), "1h30m");
  EXPECT_EQ(format_duration(milliseconds(0)), "0s");
  EXPECT_EQ(format_duration(milliseconds(86400000 + 1500)), "1d1s500ms");
  EXPECT_EQ(format_duration(milliseconds(900000)), "15m");
}

}  // namespace
}  // namespace gpuwatch::alerts
