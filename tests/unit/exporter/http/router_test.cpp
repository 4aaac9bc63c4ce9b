#include "exporter/http/router.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::exporter::http {
namespace {

Router make_router() {
  Router router;
  router.get("/metrics", [](const HttpRequest&, HttpResponse& res) { res.set_content("m", "text/plain"); });
  router.get("/", [](const HttpRequest&, HttpResponse& res) { res.set_content("page", "text/html"); });
  router.get_prefix("/assets/", [](const HttpRequest& req, HttpResponse& res) { res.set_content(req.path, "text/plain"); });
  router.get("/api/v1/history", [](const HttpRequest&, HttpResponse&) {}, Speed::Slow);
  return router;
}

TEST(Router, ExactPrefixAndUnknownPaths) {
  Router router = make_router();
  auto metrics = router.find("GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.route->path, "/metrics");
  EXPECT_EQ(router.find("GET", "/assets/dashboard.js").route->path, "/assets/");
  EXPECT_EQ(router.find("GET", "/assets/").status, 404);  // the prefix alone names no file
  EXPECT_EQ(router.find("GET", "/metricsx").status, 404);
  EXPECT_EQ(router.find("GET", "/nothing").status, 404);
  EXPECT_EQ(router.find("GET", "/").route->path, "/");
}

TEST(Router, HeadIsAnsweredAsGetAndOtherMethodsAre405) {
  Router router = make_router();
  EXPECT_EQ(router.find("HEAD", "/metrics").status, 200);
  auto post = router.find("POST", "/metrics");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.route, nullptr);
  EXPECT_EQ(router.find("POST", "/unknown").status, 404);
}

TEST(Router, SlowRoutesAreMarked) {
  Router router = make_router();
  EXPECT_EQ(router.find("GET", "/api/v1/history").route->speed, Speed::Slow);
  EXPECT_EQ(router.find("GET", "/metrics").route->speed, Speed::Fast);
}

TEST(HttpRequest, HeadersAreCaseInsensitiveAndParamsExact) {
  HttpRequest request;
  request.headers = {{"Accept", "text/plain"}, {"X-Two", "1"}, {"x-two", "2"}};
  request.query = {{"gpu", "3"}};
  EXPECT_EQ(request.header("accept"), "text/plain");
  EXPECT_EQ(request.header("X-TWO"), "1");
  EXPECT_EQ(request.header("Missing"), "");
  EXPECT_EQ(request.param("gpu"), "3");
  EXPECT_EQ(request.param("GPU"), "");
}

}  // namespace
}  // namespace gpuwatch::exporter::http
