#include "exporter/dashboard_routes.hpp"

#include <gtest/gtest.h>

#include <string>

#include "web/web_assets.hpp"

namespace gpuwatch::exporter {
namespace {

TEST(DashboardRoutes, RootIsTheEmbeddedPage) {
  auto page = answer_static("/", "");
  ASSERT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(page.body, web::asset(kDashboardPage));
  // It loads its scripts and styles from this server only, never inline (the CSP forbids both).
  std::string html(page.body);
  for (const char* asset : {"assets/uPlot.iife.min.js", "assets/uPlot.min.css", "assets/dashboard.js",
                            "assets/dashboard_charts.js", "assets/dashboard.css"}) {
    EXPECT_NE(html.find(std::string("\"") + asset + "\""), std::string::npos) << asset;
  }
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<style"), std::string::npos);
}

TEST(DashboardRoutes, EveryAssetThePageNamesIsServedWithItsType) {
  struct Case {
    const char* path;
    const char* type;
  };
  for (auto c : {Case{"/assets/uPlot.iife.min.js", "text/javascript; charset=utf-8"},
                 Case{"/assets/dashboard.js", "text/javascript; charset=utf-8"},
                 Case{"/assets/dashboard_charts.js", "text/javascript; charset=utf-8"},
                 Case{"/assets/uPlot.min.css", "text/css; charset=utf-8"},
                 Case{"/assets/dashboard.css", "text/css; charset=utf-8"},
                 Case{"/assets/uPlot.LICENSE.txt", "text/plain; charset=utf-8"}}) {
    auto answer = answer_static(c.path, "");
    ASSERT_EQ(answer.status, 200) << c.path;
    EXPECT_EQ(answer.content_type, c.type) << c.path;
    EXPECT_FALSE(answer.body.empty()) << c.path;
    EXPECT_EQ(answer.body, web::asset(std::string(c.path).substr(kAssetPrefix.size()))) << c.path;
  }
}

TEST(DashboardRoutes, AnythingElseIsNotFound) {
  for (const char* path : {"/assets/", "/assets/missing.js", "/assets/../web_assets.cpp", "/assets/a/dashboard.js",
                           "/assets/dashboard.html", "/dashboard.js", "/assets", "/index.html", "",
                           "/assets/dashboard.js/", "/etc/passwd", "/assets/%2e%2e%2fdashboard.js"}) {
    auto answer = answer_static(path, "");
    EXPECT_EQ(answer.status, 404) << path;
    EXPECT_TRUE(answer.body.empty()) << path;
    EXPECT_TRUE(answer.etag.empty()) << path;
  }
}

TEST(DashboardRoutes, OnlyScriptsStylesTextAndPagesHaveAType) {
  EXPECT_EQ(asset_content_type("a.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(asset_content_type("a.css"), "text/css; charset=utf-8");
  EXPECT_EQ(asset_content_type("a.txt"), "text/plain; charset=utf-8");
  EXPECT_EQ(asset_content_type("a.html"), "text/html; charset=utf-8");
  EXPECT_FALSE(asset_content_type("a.json"));
  EXPECT_FALSE(asset_content_type("a.js.map"));
  EXPECT_FALSE(asset_content_type("js"));
}

TEST(DashboardRoutes, ETagIsStablePerContentAndAnswers304) {
  auto first = answer_static("/assets/dashboard.js", "");
  auto again = answer_static("/assets/dashboard.js", "");
  auto other = answer_static("/assets/dashboard.css", "");
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(first.etag.size(), 18u);  // 16 hex digits, quoted
  EXPECT_EQ(first.etag.front(), '"');
  EXPECT_EQ(first.etag, again.etag);
  EXPECT_NE(first.etag, other.etag);

  for (const std::string& header : {first.etag, "W/" + first.etag, "\"x\", " + first.etag, std::string("*")}) {
    auto cached = answer_static("/assets/dashboard.js", header);
    EXPECT_EQ(cached.status, 304) << header;
    EXPECT_TRUE(cached.body.empty()) << header;
    EXPECT_EQ(cached.etag, first.etag) << header;
  }
  EXPECT_EQ(answer_static("/assets/dashboard.js", other.etag).status, 200);
  EXPECT_EQ(answer_static("/assets/dashboard.js", "\"0000000000000000\"").status, 200);
}

TEST(DashboardRoutes, PolicyAllowsOnlyThisOrigin) {
  std::string csp(kDashboardCsp);
  EXPECT_NE(csp.find("default-src 'self'"), std::string::npos);
  EXPECT_NE(csp.find("script-src 'self'"), std::string::npos);
  EXPECT_NE(csp.find("connect-src 'self'"), std::string::npos);
  EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos);
  EXPECT_EQ(csp.find("unsafe-eval"), std::string::npos);
  EXPECT_EQ(csp.find("http"), std::string::npos);
}

}  // namespace
}  // namespace gpuwatch::exporter
