#include "exporter/http_server.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::exporter {
namespace {

TEST(ListenAddress, Parses) {
  auto a = parse_listen_address("127.0.0.1:9835");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9835);
  auto b = parse_listen_address("[::1]:0");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 0);
  EXPECT_FALSE(parse_listen_address("127.0.0.1"));
  EXPECT_FALSE(parse_listen_address(":9835"));
  EXPECT_FALSE(parse_listen_address("127.0.0.1:70000"));
  EXPECT_FALSE(parse_listen_address("127.0.0.1:9x"));
  EXPECT_FALSE(parse_listen_address("::1:9835"));
}

TEST(ListenAddress, Loopback) {
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("127.1.2.3"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_FALSE(is_loopback_host("::"));
  EXPECT_FALSE(is_loopback_host("10.0.0.1"));
  EXPECT_FALSE(is_loopback_host("127.evil.com"));
  EXPECT_FALSE(is_loopback_host("127.0.0.1.nip.io"));
}

}  // namespace
}  // namespace gpuwatch::exporter
