// issue 16: huge or non-finite numbers in --since/--until/--interval are clear errors.
#include "core/time_spec.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gpuwatch::core {
namespace time_spec_bounds_test {  // this test file's helpers (unity builds: no clash with another file's)

const auto kNow = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'764'000'000'000));

TEST(TimeSpecBounds, A400DigitDurationIsOutOfRangeNotStod) {
  const std::string huge(400, '9');
  auto d = parse_duration(huge);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("out of range"), std::string::npos) << d.error().message;
  EXPECT_NE(d.error().message.find("9999999999"), std::string::npos);  // names the value...
  EXPECT_LT(d.error().message.size(), 200u);                           // ...cut, not whole
  auto t = parse_time_range(huge, "", kNow);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message.rfind("--since: ", 0), 0u);
}

TEST(TimeSpecBounds, AnUnixTimePastTheYear9999IsRefused) {
  auto t = parse_time_spec("@9300000000000000", kNow);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("'@9300000000000000' is out of range"), std::string::npos) << t.error().message;
  EXPECT_FALSE(parse_time_spec("@" + std::string(400, '9'), kNow));
  EXPECT_EQ(*parse_time_spec("@253402300799", kNow), 253402300799000);
  EXPECT_EQ(*parse_time_spec("@1.5", kNow), 1500);
}

}  // namespace time_spec_bounds_test
}  // namespace gpuwatch::core
