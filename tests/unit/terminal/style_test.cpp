#include "terminal/style.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::terminal {
namespace {

TEST(TerminalStyle, PaintsWithResetWhenEnabled) {
  Style style(true);
  EXPECT_EQ(style.paint("63", Color::BoldRed), "\x1b[1;31m63\x1b[0m");
  EXPECT_EQ(style.paint("x", Color::Plain), "x");
}

TEST(TerminalStyle, LeavesTextAloneWhenDisabled) {
  Style style(false);
  EXPECT_EQ(style.paint("63", Color::BoldRed), "63");
}

TEST(TerminalStyle, ColourOnlyOnTerminalWithoutNoColor) {
  EXPECT_TRUE(should_use_color(false, true));
  EXPECT_FALSE(should_use_color(true, true));
  EXPECT_FALSE(should_use_color(false, false));
}

}  // namespace
}  // namespace gpuwatch::terminal
