#include "tui/format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "terminal/width.hpp"

namespace gpuwatch::tui {
namespace {

constexpr const char* kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
constexpr std::string_view kLevels[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

// Drops whole UTF-8 code points from the end until TEXT is at most WIDTH columns.
std::string cut_to(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t columns = 0;
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    if (columns + 1 > width) break;
    out.append(text, i, len);
    ++columns;
    i += len;
  }
  return out;
}

}  // namespace

std::string bar(std::optional<double> ratio, int width) {
  if (width <= 0) return "";
  if (!ratio || !std::isfinite(*ratio)) {
    std::string na = kNa;
    if (width < 3) return std::string(static_cast<std::size_t>(width), ' ');
    int left = (width - 3) / 2;
    return std::string(static_cast<std::size_t>(left), ' ') + na + std::string(static_cast<std::size_t>(width - 3 - left), ' ');
  }
  double r = std::clamp(*ratio, 0.0, 1.0);
  int eighths = static_cast<int>(std::lround(r * width * 8));
  int full = eighths / 8;
  int part = eighths % 8;
  std::string out;
  for (int i = 0; i < full; ++i) out += "█";
  int used = full;
  if (part > 0 && used < width) {
    out += kEighths[part];
    ++used;
  }
  out.append(static_cast<std::size_t>(width - used), ' ');
  return out;
}

std::string sparkline(std::span<const std::optional<double>> values, int width) {
  if (width <= 0) return "";
  std::size_t w = static_cast<std::size_t>(width);
  std::size_t start = values.size() > w ? values.size() - w : 0;
  std::string out(w - std::min(w, values.size() - start), ' ');
  out.reserve(out.size() + 3 * (values.size() - start));  // a level is 3 bytes of UTF-8
  for (std::size_t i = start; i < values.size(); ++i) {
    const auto& v = values[i];
    if (!v || !std::isfinite(*v)) {
      out += ' ';
      continue;
    }
    int level = static_cast<int>(std::lround(std::clamp(*v, 0.0, 1.0) * 7));
    out += kLevels[level];
  }
  return out;
}

std::string format_percent(std::optional<double> ratio) {
  if (!ratio) return kNa;
  return fmt::format("{}%", std::llround(*ratio * 100));
}

std::string format_bytes(std::optional<double> bytes) {
  if (!bytes) return kNa;
  constexpr double kMiB = 1024.0 * 1024.0;
  double mib = *bytes / kMiB;
  if (mib < 1024) return fmt::format("{}MiB", static_cast<long long>(mib));
  double gib = mib / 1024;
  if (gib < 1024) return fmt::format("{:.1f}GiB", gib);
  return fmt::format("{:.1f}TiB", gib / 1024);
}

std::string format_bytes_pair(std::optional<double> used, std::optional<double> total) {
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  std::string u = used ? fmt::format("{:.1f}", *used / kGiB) : std::string(kNa);
  std::string t = total ? fmt::format("{:.1f}", *total / kGiB) : std::string(kNa);
  return u + "/" + t + "GiB";
}

std::string format_rate(std::optional<double> bytes_per_s) {
  if (!bytes_per_s) return kNa;
  double v = *bytes_per_s;
  if (v < 1e6) return fmt::format("{}KB/s", std::llround(v / 1e3));
  if (v < 1e9) return fmt::format("{}MB/s", std::llround(v / 1e6));
  return fmt::format("{:.1f}GB/s", v / 1e9);
}

std::string format_watts(std::optional<double> watts) {
  if (!watts) return kNa;
  return fmt::format("{}W", static_cast<long long>(std::floor(*watts + 1e-6)));
}

std::string format_celsius(std::optional<double> celsius) {
  if (!celsius) return kNa;
  return fmt::format("{}°C", std::llround(*celsius));
}

std::string format_mhz(std::optional<double> hz) {
  if (!hz) return kNa;
  return fmt::format("{}", std::llround(*hz / 1e6));
}

std::string format_duration(std::optional<double> seconds) {
  if (!seconds || *seconds < 0) return kNa;
  auto s = static_cast<long long>(*seconds);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}:{:02}", s / 60, s % 60);
  if (s < 86400) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  return fmt::format("{}d{:02}h", s / 86400, (s % 86400) / 3600);
}

std::string format_age(double seconds) {
  if (seconds < 10) return fmt::format("{:.1f}s", seconds);
  auto s = static_cast<long long>(seconds);
  if (s < 60) return fmt::format("{}s", s);
  return fmt::format("{}m{:02}s", s / 60, s % 60);
}

std::string pad(const std::string& text, int width, bool right) {
  if (width <= 0) return "";
  std::size_t w = static_cast<std::size_t>(width);
  std::size_t shown = terminal::display_width(text);
  if (shown > w) return w == 1 ? cut_to(text, 1) : cut_to(text, w - 1) + "…";
  std::string fill(w - shown, ' ');
  return right ? fill + text : text + fill;
}

}  // namespace gpuwatch::tui
