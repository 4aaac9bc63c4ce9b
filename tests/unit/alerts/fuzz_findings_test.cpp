// What fuzz/duration_time_fuzz.cpp and fuzz/alert_rules_fuzz.cpp found in the rules file's
// durations and annotation templates (issue 16, part 4).
#include <gtest/gtest.h>

#include <variant>

#include "alerts/duration.hpp"
#include "alerts/expression.hpp"
#include "alerts/template.hpp"

namespace gpuwatch::alerts {
namespace {

using std::chrono::milliseconds;

TEST(AlertsFuzzFindings, ADurationPastInt64MillisecondsIsNotADuration) {
  // 1000000000y overflowed int64 (a signed overflow, UBSan); now refused as Prometheus does.
  EXPECT_EQ(parse_duration("1000000000y"), std::nullopt);
  EXPECT_EQ(parse_duration("292000000y1000000000w"), std::nullopt);
  EXPECT_EQ(parse_duration("292000000y"), milliseconds(292000000LL * 365 * 86400000));  // still within
}

TEST(AlertsFuzzFindings, AFormattedDurationReadsBack) {
  // format_duration(182500250w) is 1277501750d, which the parser refused (a 1e9 cap per number).
  const auto weeks = parse_duration("182500250w");
  ASSERT_TRUE(weeks);
  EXPECT_EQ(format_duration(*weeks), "1277501750d");
  EXPECT_EQ(parse_duration(format_duration(*weeks)), weeks);
  EXPECT_EQ(parse_duration("99999999999999999999s"), std::nullopt);  // past int64 as a number
}

TEST(AlertsFuzzFindings, HumanizeDurationOfAHugeValueIsANumberOfSeconds) {
  // static_cast<long long>(1e300) was undefined (UBSan float-cast-overflow) when an alert with
  // {{ $value | humanizeDuration }} fired on a huge value.
  EXPECT_EQ(humanize_duration(1e300), "1e+300s");
  EXPECT_EQ(humanize_duration(-1e300), "-1e+300s");
  EXPECT_EQ(humanize_duration(3725), "1h 2m 5s");
}

TEST(AlertsFuzzFindings, PrintfWidthAndPrecisionHaveTwoDigitsAtMost) {
  // "%2147483648f" made snprintf fail and leave its buffer unset; "%999999999f" took seconds.
  for (const char* text : {"{{ printf \"%2147483648f\" $value }}", "{{ printf \"%999999999f\" $value }}",
                           "{{ printf \"%.999999f\" $value }}"}) {
    EXPECT_TRUE(std::holds_alternative<Template::ParseError>(Template::parse(text))) << text;
  }
  auto ok = Template::parse("{{ printf \"%12.2f\" $value }} {{ printf \"%.1f\" $value }}");
  ASSERT_TRUE(std::holds_alternative<Template>(ok));
  EXPECT_EQ(std::get<Template>(ok).render({91.25, nullptr, ""}), "       91.25 91.2");
}

TEST(AlertsFuzzFindings, ADeeplyNestedExpressionIsAnErrorNotAStackOverflow) {
  // 20,000 '(' (or '-') recursed once per level: ASan stack-overflow in parse_primary.
  for (const std::string& text : {std::string(20000, '(') + "1" + std::string(20000, ')'), std::string(50000, '-') + "1",
                                  [] {
                                    std::string nots;
                                    for (int i = 0; i < 20000; ++i) nots += "not ";
                                    return nots + "gpus > 1";
                                  }()}) {
    auto parsed = Expression::parse(text, Scope::Node);
    ASSERT_TRUE(std::holds_alternative<Expression::ParseError>(parsed)) << text.substr(0, 20);
    EXPECT_NE(std::get<Expression::ParseError>(parsed).message.find("nests too deeply"), std::string::npos);
  }
  const std::string hundred = std::string(99, '(') + "gpus > 1" + std::string(99, ')');
  EXPECT_TRUE(std::holds_alternative<Expression>(Expression::parse(hundred, Scope::Node)));
}

}  // namespace
}  // namespace gpuwatch::alerts
