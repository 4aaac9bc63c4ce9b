#include "tui/theme.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::tui {
namespace {

TEST(Theme, MonoHasNoColourButSeverityStillStandsOut) {
  for (Tone t : {Tone::Normal, Tone::Warn, Tone::Critical, Tone::BarUtil, Tone::Selected, Tone::Title}) {
    EXPECT_EQ(tone_style(Theme::Mono, t).color, terminal::Color::Plain);
  }
  EXPECT_TRUE(tone_style(Theme::Mono, Tone::Critical).reverse);
  EXPECT_TRUE(tone_style(Theme::Mono, Tone::Warn).bold);
}

TEST(Theme, DefaultAndLightColourSeverityDifferently) {
  EXPECT_EQ(tone_style(Theme::Default, Tone::Critical).color, terminal::Color::Red);
  EXPECT_EQ(tone_style(Theme::Default, Tone::Warn).color, terminal::Color::Yellow);
  EXPECT_NE(tone_style(Theme::Light, Tone::Warn).color, terminal::Color::Yellow);  // unreadable on white
}

TEST(Theme, NamesRoundTripAndTheKeyCycles) {
  for (Theme t : {Theme::Default, Theme::Light, Theme::Mono}) EXPECT_EQ(theme_from_string(to_string(t)), t);
  EXPECT_FALSE(theme_from_string("solarized"));
  EXPECT_EQ(next_theme(next_theme(next_theme(Theme::Default))), Theme::Default);
}

}  // namespace
}  // namespace gpuwatch::tui
