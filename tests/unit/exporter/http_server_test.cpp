#include "exporter/http_server.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "unit/nvml/fake_nvml.hpp"

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

// The web config's TLS context is built with the server; one that cannot be built makes bind
// fail with the file and the problem (serve checks the config before, this is the backstop).
TEST(MetricsServer, TlsThatCannotBeBuiltFailsBind) {
  testing::FakeNvml fake;
  nvml::NvmlApi api(testing::make_fake_functions(fake));
  Collector collector(api, CollectorOptions{});
  auto web = std::make_shared<WebConfig>();
  web->source = "web.yml";
  web->tls.emplace();
  web->tls->cert = {"cert_file", "/nonexistent/server.crt", ""};
  web->tls->key = {"key_file", "/nonexistent/server.key", ""};
  ServerOptions options;
  options.web = web;
  MetricsServer server(collector, options);
  EXPECT_TRUE(server.uses_tls());
  auto port = server.bind({"127.0.0.1", 0});
  ASSERT_FALSE(port);
  EXPECT_EQ(port.error().message,
            "web.yml: tls_server_config: cert_file /nonexistent/server.crt: cannot read (No such file or directory)");
}

TEST(MetricsServer, UsersWithoutTlsIsPlainHttp) {
  testing::FakeNvml fake;
  nvml::NvmlApi api(testing::make_fake_functions(fake));
  Collector collector(api, CollectorOptions{});
  auto web = std::make_shared<WebConfig>();
  web->basic_auth_users["alice"] = "$2b$04$hQqdQ3bgBEhrjtKPkNSq8O5PPYGCumiJzEMmFcljlJca2K5FufT/q";
  ServerOptions options;
  options.web = web;
  MetricsServer server(collector, options);
  EXPECT_FALSE(server.uses_tls());
  auto port = server.bind({"127.0.0.1", 0});
  ASSERT_TRUE(port) << port.error().message;
  EXPECT_GT(*port, 0);
}

}  // namespace
}  // namespace gpuwatch::exporter
