#include "exporter/text_family.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace gpuwatch::exporter {
namespace text_family_test {

TEST(TextFamily, LabelValuesAreEscaped) {
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
}

TEST(TextFamily, LabelValuesShowControlsAndInvalidUtf8Visibly) {  // issue 31
  EXPECT_EQ(escape_label_value("py\x1b]52;c;aGVsbG8=\x07 x\xff\n"), "py\\\\x1b]52;c;aGVsbG8=\\\\x07 x\\\\xff\\n");
  EXPECT_EQ(escape_label_value("H100 °C"), "H100 °C");
}

TEST(TextFamily, SampleValues) {
  EXPECT_EQ(format_sample_value(std::uint64_t{18446744073709551615ULL}), "18446744073709551615");
  EXPECT_EQ(format_sample_value(std::int64_t{-5}), "-5");
  EXPECT_EQ(format_sample_value(true), "1");
  EXPECT_EQ(format_sample_value(0.5), "0.5");
  EXPECT_EQ(format_sample_value(400.0), "400");
  EXPECT_EQ(format_sample_value(41 / 100.0), "0.41");
  EXPECT_EQ(format_sample_value(85899345920.0), "85899345920");
  EXPECT_EQ(format_sample_value(2.9795e-05), "2.9795e-05");
  EXPECT_EQ(format_sample_value(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(format_sample_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_sample_value(-std::numeric_limits<double>::infinity()), "-Inf");
}

TEST(TextFamily, AFamilyWithNoSeriesLeavesNoTrace) {
  std::string out;
  { Family empty(out, "gpuwatch_nothing", "gauge", "never sampled"); }
  EXPECT_EQ(out, "");
  Family f(out, "gpuwatch_x", "gauge", "a \\ and a\nnewline");
  std::string labels;
  add_label(labels, "gpu", "0");
  add_label(labels, "name", "a\"b");
  f.sample(labels, "1");
  f.sample("", "2");
  EXPECT_EQ(out, "# HELP gpuwatch_x a \\\\ and a\\nnewline\n# TYPE gpuwatch_x gauge\n"
                 "gpuwatch_x{gpu=\"0\",name=\"a\\\"b\"} 1\ngpuwatch_x 2\n");
}

}  // namespace text_family_test
}  // namespace gpuwatch::exporter
