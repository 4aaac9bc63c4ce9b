#include "core/time_spec.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace gpuwatch::core {
namespace {

using std::chrono::milliseconds;

std::chrono::system_clock::time_point at_ms(std::int64_t ms) {
  return std::chrono::system_clock::time_point(milliseconds(ms));
}

TEST(RecordTime, DurationsTakeAUnitOrSeconds) {
  EXPECT_EQ(*parse_duration("500ms"), milliseconds(500));
  EXPECT_EQ(*parse_duration("1s"), milliseconds(1000));
  EXPECT_EQ(*parse_duration("1.5s"), milliseconds(1500));
  EXPECT_EQ(*parse_duration("2"), milliseconds(2000));
  EXPECT_EQ(*parse_duration("2m"), milliseconds(120'000));
  EXPECT_EQ(*parse_duration("2h"), milliseconds(7'200'000));
  EXPECT_EQ(*parse_duration("7d"), milliseconds(604'800'000));
  EXPECT_FALSE(parse_duration("0s"));
  EXPECT_FALSE(parse_duration("-1s"));
  EXPECT_FALSE(parse_duration("1 fortnight"));
  EXPECT_FALSE(parse_duration(""));
  EXPECT_NE(parse_duration("soon").error().message.find("500ms"), std::string::npos);
}

TEST(RecordTime, RelativeAndUnixTimes) {
  auto now = at_ms(1'800'000'000'000);
  EXPECT_EQ(*parse_time_spec("2h", now), 1'800'000'000'000 - 7'200'000);
  EXPECT_EQ(*parse_time_spec("now", now), 1'800'000'000'000);
  EXPECT_EQ(*parse_time_spec("@1700000000", now), 1'700'000'000'000);
  EXPECT_EQ(*parse_time_spec("@1700000000.25", now), 1'700'000'000'250);
  EXPECT_FALSE(parse_time_spec("@x", now));
  EXPECT_FALSE(parse_time_spec("yesterday", now));
}

TEST(RecordTime, RangesLeaveOpenEndsOpenAndNameTheBadOption) {
  auto now = at_ms(1'800'000'000'000);
  auto both = parse_time_range("2h", "1h", now);
  ASSERT_TRUE(both);
  EXPECT_EQ(both->since_ms, 1'800'000'000'000 - 7'200'000);
  EXPECT_EQ(both->until_ms, 1'800'000'000'000 - 3'600'000);
  auto open = parse_time_range("all", "", now);
  ASSERT_TRUE(open);
  EXPECT_FALSE(open->since_ms.has_value());
  EXPECT_FALSE(open->until_ms.has_value());
  auto bad = parse_time_range("2h", "yesterday", now);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.rfind("--until: ", 0), 0u);
}

TEST(RecordTime, IsoTimesWithZones) {
  auto now = at_ms(0);
  EXPECT_EQ(*parse_time_spec("2023-11-14T22:13:20Z", now), 1'700'000'000'000);
  EXPECT_EQ(*parse_time_spec("2023-11-14T22:13:20.5Z", now), 1'700'000'000'500);
  EXPECT_EQ(*parse_time_spec("2023-11-14 23:13:20+01:00", now), 1'700'000'000'000);
  EXPECT_EQ(*parse_time_spec("2023-11-14T16:43:20-0530", now), 1'700'000'000'000);
  EXPECT_EQ(*parse_time_spec("2023-11-14Z", now), 1'699'920'000'000);
  EXPECT_FALSE(parse_time_spec("2023-13-01", now));
  EXPECT_FALSE(parse_time_spec("2023-11-14T25:00", now));
}

// Issue 16: a date that does not exist was normalised into another (month 00 became December
// of the year before, 02-30 became March 2); a zone offset past 23:59 was taken too.
TEST(RecordTime, DatesThatDoNotExistAreRefused) {
  auto now = at_ms(0);
  for (const char* bad : {"2026-00-10Z", "2026-02-29Z", "2026-02-30Z", "2026-04-31Z", "2026-01-00Z",
                          "2026-01-01T00:00+24:00", "2026-01-01T00:00+01:60"}) {
    auto r = parse_time_spec(bad, now);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
  }
  EXPECT_EQ(*parse_time_spec("2024-02-29Z", now), 1'709'164'800'000);  // a leap day
  EXPECT_TRUE(parse_time_spec("2000-02-29Z", now));                    // divisible by 400
  EXPECT_FALSE(parse_time_spec("1900-02-29Z", now));                   // by 100, not 400
  EXPECT_TRUE(parse_time_spec("2026-12-31T23:59:59+23:59", now));
}

class LocalZone : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    saved_ = tz ? std::optional<std::string>(tz) : std::nullopt;
    setenv("TZ", "CET-1", 1);  // fixed +01:00, no DST rules
    tzset();
  }
  void TearDown() override {
    if (saved_) setenv("TZ", saved_->c_str(), 1); else unsetenv("TZ");
    tzset();
  }
  std::optional<std::string> saved_;
};

TEST_F(LocalZone, IsoWithoutZoneIsLocalTime) {
  EXPECT_EQ(*parse_time_spec("2023-11-14T23:13:20", at_ms(0)), 1'700'000'000'000);
}

TEST_F(LocalZone, FormatsIso8601WithMillisecondsAndOffset) {
  EXPECT_EQ(format_iso8601(at_ms(1'700'000'000'042)), "2023-11-14T23:13:20.042+01:00");
  // And it reads back.
  EXPECT_EQ(*parse_time_spec(format_iso8601(at_ms(1'700'000'000'042)), at_ms(0)), 1'700'000'000'042);
}

}  // namespace
}  // namespace gpuwatch::core
