#pragma once
// Themes: what each kind of text (a Tone) looks like. Pure tables; screen.cpp turns them into
// curses attributes. `mono` uses no colour at all (NO_COLOR and --no-color force it): severity
// is then bold (warning) and reverse video (critical), so it still stands out.
#include <optional>
#include <string_view>

#include "terminal/style.hpp"

namespace gpuwatch::tui {

enum class Theme { Default, Mono, Light };
std::string_view to_string(Theme theme);  // "default", "mono", "light"
std::optional<Theme> theme_from_string(std::string_view text);
Theme next_theme(Theme theme);

enum class Tone {
  Normal, Dim, Title, Header, Selected, Ok, Warn, Critical, Accent, BarUtil, BarMemory, BarPower, BarTemp, Key
};

struct ToneStyle {
  terminal::Color color = terminal::Color::Plain;  // Plain: the terminal's default
  bool bold = false;
  bool reverse = false;
  bool dim = false;
};

ToneStyle tone_style(Theme theme, Tone tone);

}  // namespace gpuwatch::tui
