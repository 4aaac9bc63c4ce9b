// What fuzz/query_fields_fuzz.cpp found in nvidia-smi's cell text (issue 16, part 4).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/field_format.hpp"

namespace gpuwatch::core {
namespace {

TEST(FieldFormatFuzzFindings, ATimestampOutsideTheClocksRangeIsTheNumberNotAnOverflow) {
  // llround(1e300 * 1000) -> milliseconds -> nanoseconds overflowed int64 (UBSan).
  EXPECT_EQ(format_value(Display::Timestamp, FieldValue(1e300), true), "1e+300");
  EXPECT_EQ(format_value(Display::Timestamp, FieldValue(std::numeric_limits<std::int64_t>::min()), true),
            "-9.223372036854776e+18");
  EXPECT_EQ(format_value(Display::Timestamp, FieldValue(std::numeric_limits<double>::quiet_NaN()), true), "nan");
  const std::string usual = format_value(Display::Timestamp, FieldValue(1796040000.25), true);
  EXPECT_EQ(usual.size(), std::string("2026/11/30 12:00:00.250").size()) << usual;
  EXPECT_EQ(usual.substr(usual.size() - 4), ".250") << usual;
}

}  // namespace
}  // namespace gpuwatch::core
