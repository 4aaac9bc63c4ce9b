#include "terminal/width.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::terminal {
namespace {

TEST(Width, TheTerminalWinsOverColumns) {
  EXPECT_EQ(choose_columns(std::size_t{80}, "200"), 80u);
  EXPECT_EQ(choose_columns(std::size_t{163}, nullptr), 163u);
}

TEST(Width, ColumnsWhenNotATerminal) {
  EXPECT_EQ(choose_columns(std::nullopt, "80"), 80u);
  EXPECT_EQ(choose_columns(std::size_t{0}, "160"), 160u);  // a terminal that reports 0
}

TEST(Width, NoLimitWhenNothingSaysSo) {
  EXPECT_EQ(choose_columns(std::nullopt, nullptr), 0u);
  EXPECT_EQ(choose_columns(std::nullopt, ""), 0u);
  EXPECT_EQ(choose_columns(std::nullopt, "wide"), 0u);
  EXPECT_EQ(choose_columns(std::nullopt, "-5"), 0u);
  EXPECT_EQ(choose_columns(std::nullopt, "80x"), 0u);
}

TEST(Width, DisplayWidthCountsCodePoints) {
  EXPECT_EQ(display_width("65°C"), 4u);
  EXPECT_EQ(display_width("    └ ▼"), 7u);
}

TEST(Width, DisplayWidthOfLongMixedTextEightBytesAtATime) {
  // Every length and alignment around the 8-byte words: ASCII, 2-, 3- and 4-byte code points.
  const std::string unit = "a°█\xF0\x9F\x98\x80b";  // 5 code points in 10 bytes
  std::string text;
  for (int n = 0; n < 12; ++n) {
    EXPECT_EQ(display_width(text), 5u * static_cast<std::size_t>(n)) << n;
    EXPECT_EQ(display_width("x" + text), 5u * static_cast<std::size_t>(n) + 1) << n;
    text += unit;
  }
  EXPECT_EQ(display_width(std::string(13, '\x80')), 0u);  // continuation bytes alone
  EXPECT_EQ(display_width(std::string(17, '\xC0')), 17u);
}

TEST(Width, FitCutsWithAnEllipsisOnCodePointBoundaries) {
  EXPECT_EQ(fit("python train.py", 0), "python train.py");
  EXPECT_EQ(fit("python train.py", 15), "python train.py");
  EXPECT_EQ(fit("python train.py", 10), "python ...");
  EXPECT_EQ(fit("°°°°°°", 5), "°°...");
  EXPECT_EQ(display_width(fit("°°°°°°", 5)), 5u);
  EXPECT_EQ(fit("abcdef", 2), "..");
}

}  // namespace
}  // namespace gpuwatch::terminal
