#include "tui/config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch::tui {
namespace {

TEST(Config, PathFollowsXdgThenHome) {
  EXPECT_EQ(config_path("/x", "/home/a"), "/x/gpuwatch/top.yaml");
  EXPECT_EQ(config_path("relative", "/home/a"), "/home/a/.config/gpuwatch/top.yaml");  // XDG wants absolute paths
  EXPECT_EQ(config_path(nullptr, "/home/a"), "/home/a/.config/gpuwatch/top.yaml");
  EXPECT_EQ(config_path(nullptr, nullptr), "");
}

TEST(Config, ParsesEverySetting) {
  auto c = parse_config("layout: lines\ntheme: mono\ncharts: false\nsort: cpu_percent\ndescending: false\n", "top.yaml");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->layout, LayoutKind::Lines);
  EXPECT_EQ(c->theme, Theme::Mono);
  EXPECT_EQ(c->charts, false);
  EXPECT_EQ(c->sort, Column::CpuPercent);
  EXPECT_EQ(c->descending, false);
  auto empty = parse_config("", "top.yaml");
  ASSERT_TRUE(empty);
  EXPECT_FALSE(empty->layout.has_value());
}

TEST(Config, BadValuesNameTheFileAndTheKey) {
  auto layout = parse_config("layout: grid\n", "/c/top.yaml");
  ASSERT_FALSE(layout);
  EXPECT_NE(layout.error().message.find("/c/top.yaml: layout: 'grid'"), std::string::npos);
  auto unknown = parse_config("colour: red\n", "/c/top.yaml");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown setting 'colour'"), std::string::npos);
  auto boolean = parse_config("charts: maybe\n", "f");
  ASSERT_FALSE(boolean);
  EXPECT_NE(boolean.error().message.find("charts: expected true or false"), std::string::npos);
  EXPECT_FALSE(parse_config("[1, 2]\n", "f"));
  EXPECT_FALSE(parse_config("layout: [a]\n", "f"));
  EXPECT_FALSE(parse_config("a: b: c: [\n", "f"));
}

TEST(Config, SavesAndLoadsBackCreatingTheFolder) {
  auto dir = std::filesystem::temp_directory_path() / ("gw-top-config-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string path = (dir / "gpuwatch" / "top.yaml").string();
  auto missing = load_config(path);
  ASSERT_TRUE(missing);  // no file: no settings
  EXPECT_FALSE(missing->theme.has_value());
  TopConfig c;
  c.layout = LayoutKind::Compact;
  c.theme = Theme::Light;
  c.charts = true;
  c.sort = Column::Time;
  c.descending = true;
  ASSERT_TRUE(save_config(path, c));
  auto back = load_config(path);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->layout, LayoutKind::Compact);
  EXPECT_EQ(back->theme, Theme::Light);
  EXPECT_EQ(back->sort, Column::Time);
  EXPECT_EQ(back->descending, true);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuwatch::tui
