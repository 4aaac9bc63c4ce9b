#include "tui/format.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "terminal/width.hpp"

namespace gpuwatch::tui {
namespace {

TEST(Format, BarFillsByEighthsAndKeepsItsWidth) {
  EXPECT_EQ(bar(1.0, 4), "████");
  EXPECT_EQ(bar(0.0, 4), "    ");
  EXPECT_EQ(bar(0.5, 4), "██  ");
  EXPECT_EQ(bar(0.5625, 4), "██▎ ");  // 18 eighths of 32: two full, a quarter
  EXPECT_EQ(bar(2.0, 3), "███");      // clamped
  for (double r : {0.0, 0.13, 0.5, 0.77, 1.0}) EXPECT_EQ(terminal::display_width(bar(r, 11)), 11u) << r;
}

TEST(Format, AbsentBarSaysNaNotEmpty) {
  EXPECT_EQ(bar(std::nullopt, 7), "  N/A  ");
  EXPECT_EQ(bar(std::nullopt, 2), "  ");
}

TEST(Format, SparklineKeepsTheLatestPointsAndGapsForAbsent) {
  std::vector<std::optional<double>> v = {0.0, 1.0, std::nullopt, 0.5};
  EXPECT_EQ(sparkline(v, 4), "▁█ ▅");
  EXPECT_EQ(sparkline(v, 2), " ▅");
  EXPECT_EQ(sparkline(v, 6), "  ▁█ ▅");  // right-aligned: the newest point at the right edge
}

TEST(Format, ValuesInReadableUnits) {
  EXPECT_EQ(format_percent(0.994), "99%");
  EXPECT_EQ(format_percent(std::nullopt), "N/A");
  EXPECT_EQ(format_bytes(512.0 * 1024 * 1024), "512MiB");
  EXPECT_EQ(format_bytes(62315.0 * 1024 * 1024), "60.9GiB");
  EXPECT_EQ(format_bytes_pair(62315.0 * 1024 * 1024, 81559.0 * 1024 * 1024), "60.9/79.6GiB");
  EXPECT_EQ(format_bytes_pair(std::nullopt, 81559.0 * 1024 * 1024), "N/A/79.6GiB");
  EXPECT_EQ(format_rate(42e6), "42MB/s");
  EXPECT_EQ(format_rate(850e3), "850KB/s");
  EXPECT_EQ(format_rate(12.5e9), "12.5GB/s");
  EXPECT_EQ(format_watts(68.9999999), "69W");
  EXPECT_EQ(format_celsius(65.4), "65°C");
  EXPECT_EQ(format_mhz(1965e6), "1965");
  EXPECT_EQ(format_duration(59), "59s");
  EXPECT_EQ(format_duration(725), "12:05");
  EXPECT_EQ(format_duration(3 * 3600 + 7 * 60), "3h07m");
  EXPECT_EQ(format_duration(2 * 86400 + 4 * 3600), "2d04h");
  EXPECT_EQ(format_duration(std::nullopt), "N/A");
  EXPECT_EQ(format_age(0.42), "0.4s");
  EXPECT_EQ(format_age(185), "3m05s");
}

TEST(Format, PadCutsWithAnEllipsisAndCountsColumnsNotBytes) {
  EXPECT_EQ(pad("abc", 5), "abc  ");
  EXPECT_EQ(pad("abc", 5, true), "  abc");
  EXPECT_EQ(pad("abcdef", 4), "abc…");
  EXPECT_EQ(pad("65°C", 5, true), " 65°C");
  EXPECT_EQ(terminal::display_width(pad("█▌▌▌▌▌▌", 4)), 4u);
}

}  // namespace
}  // namespace gpuwatch::tui
