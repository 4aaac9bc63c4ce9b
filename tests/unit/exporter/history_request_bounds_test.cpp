// issue 16: /api/v1/history?seconds=1e18 overflowed the store's arithmetic: now a 400.
#include <gtest/gtest.h>

#include "exporter/json_api.hpp"

namespace gpuwatch::exporter {
namespace {

TEST(HistoryRequestBounds, HugeOrNonFiniteSecondsAreRefusedWithTheLimit) {
  for (const char* bad : {"1e18", "1e309", "inf", "nan", "315360001"}) {
    auto r = parse_history_request(bad, "", 2);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
  }
  auto r = parse_history_request("1e18", "", 2);
  EXPECT_EQ(r.error().message, "seconds must be at most 315360000 (10 years), got '1e18'");
  auto ok = parse_history_request("315360000", "1", 2);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok->seconds, 315360000.0);
  EXPECT_EQ(*ok->gpu, 1u);
}

}  // namespace
}  // namespace gpuwatch::exporter
