#include "exporter/http/limits.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::exporter::http {
namespace {

TEST(ServerLimits, DefaultsAreTheDocumentedOnes) {
  ServerLimits limits;
  EXPECT_EQ(limits.max_header_bytes, 16u * 1024);
  EXPECT_EQ(limits.max_header_count, 100u);
  EXPECT_EQ(limits.max_body_bytes, 4096u);
  EXPECT_EQ(limits.header_deadline, std::chrono::seconds(10));
  EXPECT_EQ(limits.idle_timeout, std::chrono::seconds(5));
  EXPECT_EQ(limits.max_connections, 512u);
  EXPECT_TRUE(check_limits(limits));
}

TEST(ServerLimits, NonsenseIsAnErrorNamingTheField) {
  ServerLimits limits;
  limits.max_connections = 0;
  EXPECT_EQ(check_limits(limits).error().message, "max_connections: at least 1");
  limits = {};
  limits.header_deadline = std::chrono::milliseconds(0);
  EXPECT_EQ(check_limits(limits).error().message, "header_deadline: must be positive");
  limits = {};
  limits.max_header_bytes = 10;
  EXPECT_FALSE(check_limits(limits));
}

TEST(Refusal, EachIsAClear4xx) {
  ServerLimits limits;
  EXPECT_EQ(refusal_answer(Refusal::HeaderTooLarge, limits).status, 431);
  EXPECT_EQ(refusal_answer(Refusal::HeaderTooLarge, limits).message, "request headers too large (limit 16384 bytes)");
  EXPECT_EQ(refusal_answer(Refusal::TooManyHeaders, limits).status, 431);
  EXPECT_EQ(refusal_answer(Refusal::TooManyHeaders, limits).message, "too many request headers (limit 100)");
  EXPECT_EQ(refusal_answer(Refusal::BodyTooLarge, limits).status, 413);
  EXPECT_EQ(refusal_answer(Refusal::MalformedRequest, limits).status, 400);
  EXPECT_EQ(refusal_answer(Refusal::UnsupportedVersion, limits).status, 505);
  auto bad = refusal_answer(Refusal::BadTarget, limits, "query parameter 'gpu': not valid UTF-8");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.message, "bad request target: query parameter 'gpu': not valid UTF-8");
}

}  // namespace
}  // namespace gpuwatch::exporter::http
