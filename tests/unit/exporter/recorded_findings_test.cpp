// issue 23: /api/v1/findings' range (?seconds= or ?since=&until=), parsed and bounded, and
// its answer's shape.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "exporter/recorded_findings.hpp"

namespace gpuwatch::exporter {
namespace recorded_findings_test {

const auto kNow = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
constexpr std::int64_t kNowMs = 1'800'000'000'000;

TEST(FindingsRange, SecondsIsTheLastNSeconds) {
  auto r = parse_findings_range("7200", "", "", kNow);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->until_ms, kNowMs);
  EXPECT_EQ(r->since_ms, kNowMs - 7'200'000);
}

TEST(FindingsRange, NothingGivenIsTheLastHour) {
  auto r = parse_findings_range("", "", "", kNow);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->until_ms - r->since_ms, kDefaultFindingsRangeMs);
}

TEST(FindingsRange, SinceUntilInTheCliGrammar) {
  auto r = parse_findings_range("", "@1799990000", "@1799995000", kNow);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->since_ms, 1'799'990'000'000);
  EXPECT_EQ(r->until_ms, 1'799'995'000'000);
  auto relative = parse_findings_range("", "2h", "", kNow);
  ASSERT_TRUE(relative);
  EXPECT_EQ(relative->since_ms, kNowMs - 7'200'000);
}

TEST(FindingsRange, BadOrTooLongRangesNameTheProblem) {
  const struct {
    const char *seconds, *since, *until, *words;
  } cases[] = {
      {"abc", "", "", "seconds must be a positive number, got 'abc'"},
      {"0", "", "", "seconds must be a positive number"},
      {"nan", "", "", "seconds must be a positive number"},
      {"2678401", "", "", "at most 31 days"},
      {"", "32d", "", "at most 31 days"},
      {"", "1h", "2h", "since must be before until"},
      {"", "soon", "", "since:"},
      {"", "", "later", "until:"},
      {"60", "1h", "", "either seconds or since/until"},
  };
  for (const auto& c : cases) {
    auto r = parse_findings_range(c.seconds, c.since, c.until, kNow);
    ASSERT_FALSE(r) << c.seconds << c.since << c.until;
    EXPECT_NE(r.error().message.find(c.words), std::string::npos) << r.error().message;
  }
  EXPECT_TRUE(parse_findings_range("2678400", "", "", kNow));  // exactly 31 days
}

TEST(FindingsJson, AnEmptyRangeHasNullSampleTimesAndNoSentences) {
  const auto json = nlohmann::json::parse(recorded_findings_json({}, FindingsRange{kNowMs - 1000, kNowMs}));
  EXPECT_EQ(json["findings"], nlohmann::json::array());
  EXPECT_EQ(json["summary"], nlohmann::json::array());
  EXPECT_EQ(json["samples"], 0);
  EXPECT_TRUE(json["range"]["first_sample_s"].is_null());
  EXPECT_DOUBLE_EQ(json["range"]["until_s"].get<double>(), 1'800'000'000.0);
}

}  // namespace recorded_findings_test
}  // namespace gpuwatch::exporter
