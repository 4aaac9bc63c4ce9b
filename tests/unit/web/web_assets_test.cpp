// The web assets built into the binary (src/web): uPlot from npm and our own files.
#include "web/web_assets.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace gpuwatch::web {
namespace {

TEST(WebAssets, EveryNamedAssetIsBuiltIn) {
  for (auto name : {kUplotScript, kUplotStyle, kUplotLicense, kReportChartsScript, kReportStyle}) {
    auto content = find_asset(name);
    ASSERT_TRUE(content.has_value()) << name;
    EXPECT_GT(content->size(), 100U) << name;
    EXPECT_EQ(asset(name), *content);
  }
  EXPECT_FALSE(find_asset("missing.js").has_value());
  EXPECT_TRUE(asset("missing.js").empty());
}

TEST(WebAssets, UplotIsTheBrowserBuildOfThePinnedVersion) {
  auto script = asset(kUplotScript);
  EXPECT_NE(script.find("var uPlot="), std::string_view::npos);  // the IIFE build defines a global
  EXPECT_NE(script.find("(v" + std::string(uplot_version()) + ")"), std::string_view::npos);  // its banner
  EXPECT_NE(asset(kUplotStyle).find(".uplot"), std::string_view::npos);
  EXPECT_NE(asset(kUplotLicense).find("MIT"), std::string_view::npos);
  EXPECT_EQ(std::string(uplot_version()).find('.'), 1U);  // "1.6.32"
}

TEST(WebAssets, InlineElementsCannotBeClosedEarly) {
  EXPECT_EQ(inline_script("a = 1;"), "<script>\na = 1;\n</script>\n");
  EXPECT_EQ(inline_script("s = '</script>' + '</SCRIPT'; t = a </b;"),
            "<script>\ns = '<\\/script>' + '<\\/SCRIPT'; t = a </b;\n</script>\n");
  EXPECT_EQ(inline_style("a::after{content:'</style>'}"), "<style>\na::after{content:'<\\/style>'}\n</style>\n");
  EXPECT_EQ(inline_script("x</scrip"), "<script>\nx</scrip\n</script>\n");  // too short to be an end tag
}

TEST(WebAssets, ScriptSafeJsonParsesToTheSameValue) {
  nlohmann::json value = {{"name", "</script><b>"}, {"n", 1}};
  std::string safe = script_safe_json(value.dump());
  EXPECT_EQ(safe.find('<'), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(safe), value);
}

}  // namespace
}  // namespace gpuwatch::web
