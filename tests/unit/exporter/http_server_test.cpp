#include "exporter/http_server.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

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
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  live::Collector collector(api, live::CollectorOptions{});
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
            "web.yml: tls_server_config: cannot read cert_file '/nonexistent/server.crt': No such file or directory");
}

TEST(MetricsServer, UsersWithoutTlsIsPlainHttp) {
  testing::FakeNvml fake;
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  live::Collector collector(api, live::CollectorOptions{});
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

// Sends REQUEST to 127.0.0.1:PORT and returns the socket, without reading the answer (-1: failed).
int send_request(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::send(fd, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size())) {
    if (fd >= 0) ::close(fd);
    return -1;
  }
  return fd;
}

// Stopping never waits for a bcrypt in progress (issue 31): with a cost-14 hash (about 1 s,
// several under a sanitizer) being checked for a wrong password, stop() and the destructor
// return at once, and the pool's threads finish (or are cut by the exit) on their own.
TEST(MetricsServer, StopNeverWaitsForABcryptInProgress) {
  testing::FakeNvml fake;
  nvml::NvmlBackend api(testing::make_fake_functions(fake));
  live::Collector collector(api, live::CollectorOptions{});
  auto web = std::make_shared<WebConfig>();
  web->basic_auth_users["alice"] = "$2y$14$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze";
  ServerOptions options;
  options.web = web;
  std::chrono::steady_clock::duration stopping{};
  {
    auto server = std::make_unique<MetricsServer>(collector, options);
    auto port = server->bind({"127.0.0.1", 0});
    ASSERT_TRUE(port) << port.error().message;
    std::thread http([&server] { server->run(); });
    for (int i = 0; i < 200 && !server->is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    // alice:wrong, three times: two hashes running, one waiting.
    std::vector<int> clients;
    for (int i = 0; i < 3; ++i) {
      clients.push_back(send_request(*port, "GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YWxpY2U6d3Jvbmc=\r\n\r\n"));
      ASSERT_GE(clients.back(), 0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the hashes have started
    const auto started = std::chrono::steady_clock::now();
    server->stop();
    http.join();
    server.reset();
    stopping = std::chrono::steady_clock::now() - started;
    for (int fd : clients) ::close(fd);
  }
  // stop() itself takes up to 0.5 s (its deadline for routes); two cost-14 hashes would add over 1 s.
  EXPECT_LT(stopping, std::chrono::milliseconds(1000)) << "stop() waited for a bcrypt";
}

}  // namespace
}  // namespace gpuwatch::exporter
