#include "core/result.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::core {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return make_error("not positive", v);
  return v;
}

TEST(Result, CarriesValueOrError) {
  auto ok = parse_positive(3);
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, 3);
  auto bad = parse_positive(-2);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "not positive");
  EXPECT_EQ(bad.error().code, -2);
}

TEST(Result, VoidResult) {
  Result<void> ok;
  EXPECT_TRUE(ok);
  Result<void> bad = make_error("nope");
  EXPECT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "nope");
}

}  // namespace
}  // namespace gpuwatch::core
