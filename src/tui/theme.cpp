#include "tui/theme.hpp"

namespace gpuwatch::tui {

using terminal::Color;

std::string_view to_string(Theme theme) {
  switch (theme) {
    case Theme::Default: return "default";
    case Theme::Mono: return "mono";
    case Theme::Light: return "light";
  }
  return "default";
}

std::optional<Theme> theme_from_string(std::string_view text) {
  for (Theme t : {Theme::Default, Theme::Mono, Theme::Light}) {
    if (to_string(t) == text) return t;
  }
  return std::nullopt;
}

Theme next_theme(Theme theme) {
  switch (theme) {
    case Theme::Default: return Theme::Light;
    case Theme::Light: return Theme::Mono;
    case Theme::Mono: return Theme::Default;
  }
  return Theme::Default;
}

ToneStyle tone_style(Theme theme, Tone tone) {
  if (theme == Theme::Mono) {
    switch (tone) {
      case Tone::Title: case Tone::Header: case Tone::Warn: case Tone::Key: return {Color::Plain, true};
      case Tone::Selected: case Tone::Critical: return {Color::Plain, false, true};
      case Tone::Dim: return {Color::Plain, false, false, true};
      default: return {};
    }
  }
  const bool light = theme == Theme::Light;  // darker colours that read on a white background
  switch (tone) {
    case Tone::Normal: return {};
    case Tone::Dim: return {light ? Color::Plain : Color::Gray, false, false, light};
    case Tone::Title: return {light ? Color::Blue : Color::Cyan, true};
    case Tone::Header: return {Color::Plain, true, true};
    case Tone::Selected: return {light ? Color::Blue : Color::Cyan, true, true};
    case Tone::Ok: return {Color::Green};
    case Tone::Warn: return {light ? Color::Magenta : Color::Yellow, true};
    case Tone::Critical: return {Color::Red, true};
    case Tone::Accent: return {light ? Color::Blue : Color::Cyan};
    case Tone::BarUtil: return {Color::Green};
    case Tone::BarMemory: return {light ? Color::Blue : Color::Cyan};
    case Tone::BarPower: return {light ? Color::Magenta : Color::Yellow};
    case Tone::BarTemp: return {Color::Magenta};
    case Tone::Key: return {light ? Color::Blue : Color::Cyan, true};
  }
  return {};
}

}  // namespace gpuwatch::tui
