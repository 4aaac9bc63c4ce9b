#include "exporter/http/request_target.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::exporter::http {
namespace {

TEST(RequestTarget, SplitsAndDecodesPathAndQuery) {
  auto target = parse_request_target("/api/v1/history?seconds=60&gpu=1&name=a+b%20c&flag");
  ASSERT_TRUE(target) << target.error().message;
  EXPECT_EQ(target->path, "/api/v1/history");
  ASSERT_EQ(target->query.size(), 4u);
  EXPECT_EQ(target->query[0], (std::pair<std::string, std::string>{"seconds", "60"}));
  EXPECT_EQ(target->query[1], (std::pair<std::string, std::string>{"gpu", "1"}));
  EXPECT_EQ(target->query[2], (std::pair<std::string, std::string>{"name", "a b c"}));
  EXPECT_EQ(target->query[3], (std::pair<std::string, std::string>{"flag", ""}));
}

TEST(RequestTarget, PathKeepsPlusAndDecodesEscapes) {
  auto target = parse_request_target("/assets/a+b%2Ejs#fragment");
  ASSERT_TRUE(target);
  EXPECT_EQ(target->path, "/assets/a+b.js");
  EXPECT_TRUE(target->query.empty());
}

TEST(RequestTarget, AbsoluteFormDropsSchemeAndAuthority) {
  auto target = parse_request_target("http://127.0.0.1:9835/metrics?x=1");
  ASSERT_TRUE(target);
  EXPECT_EQ(target->path, "/metrics");
  auto bare = parse_request_target("https://example.org");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->path, "/");
}

TEST(RequestTarget, InvalidUtf8InTheQueryIsAnErrorNamingTheParameter) {
  auto target = parse_request_target("/api/v1/history?gpu=%ff");
  ASSERT_FALSE(target);
  EXPECT_EQ(target.error().message, "query parameter 'gpu': not valid UTF-8");
}

TEST(RequestTarget, BadEscapesNulAndRelativeTargetsAreErrors) {
  EXPECT_EQ(parse_request_target("/a%zz").error().message,
            "path: bad percent-encoding (expected %XX with two hex digits)");
  EXPECT_FALSE(parse_request_target("/a%f"));
  EXPECT_FALSE(parse_request_target("/a%"));
  EXPECT_EQ(parse_request_target("/a%00b").error().message, "path: contains a NUL byte");
  EXPECT_EQ(parse_request_target("metrics").error().message, "request target must start with '/'");
  EXPECT_FALSE(parse_request_target(""));
  EXPECT_FALSE(parse_request_target("/x?%c3%28=1"));  // invalid UTF-8 in a parameter name
}

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ascii"));
  EXPECT_TRUE(is_valid_utf8("\xc3\xa9t\xc3\xa9"));          // été
  EXPECT_TRUE(is_valid_utf8("\xe2\x82\xac"));                // €
  EXPECT_TRUE(is_valid_utf8("\xf0\x9f\x98\x80"));            // U+1F600
  EXPECT_TRUE(is_valid_utf8("\xf4\x8f\xbf\xbf"));            // U+10FFFF
}

TEST(Utf8, RejectsMalformedText) {
  EXPECT_FALSE(is_valid_utf8("\xff"));
  EXPECT_FALSE(is_valid_utf8("\x80"));                // a lone continuation byte
  EXPECT_FALSE(is_valid_utf8("\xc3"));                // truncated
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));            // overlong '/'
  EXPECT_FALSE(is_valid_utf8("\xe0\x80\xaf"));        // overlong, 3 bytes
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));        // a UTF-16 surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));    // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xe2\x28\xa1"));        // bad continuation
}

}  // namespace
}  // namespace gpuwatch::exporter::http
