#pragma once
// The exporter's HTTP side: /metrics (Prometheus text 0.0.4), /healthz, /readyz.
// Handlers read the collector's latest samples; they never call NVML. The HTTP
// library (cpp-httplib) stays inside http_server.cpp. With a web config (web_config.hpp) it
// serves HTTPS (httplib::SSLServer) and asks every request for basic auth.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "exporter/collector.hpp"
#include "exporter/json_api_routes.hpp"
#include "exporter/prometheus_encoder.hpp"
#include "exporter/web_config.hpp"

namespace gpuwatch::exporter {

struct ListenAddress {
  std::string host;  // "127.0.0.1", "::1", "0.0.0.0", "localhost"
  int port = 0;      // 0: any free port (the bound one is returned by bind)
};

inline constexpr std::string_view kDefaultListen = "127.0.0.1:9835";

// "127.0.0.1:9835", "[::1]:9835", "localhost:0". The port is required.
core::Result<ListenAddress> parse_listen_address(std::string_view text);
// 127.0.0.0/8, ::1 and localhost: reachable from this machine only.
bool is_loopback_host(std::string_view host);

struct ServerOptions {
  std::size_t threads = 4;                  // worker pool
  std::size_t max_request_body = 4096;      // bytes (GET endpoints take no body)
  int read_timeout_s = 5;                   // a slow client cannot hold a worker longer
  int write_timeout_s = 5;
  // An idle kept-alive connection holds a worker this long, and delays stop() as long
  // (httplib's keep-alive wait does not look at stop()): short.
  int keep_alive_timeout_s = 2;
  EncodeOptions encode;
  // /api/v1/... (json_api_routes.hpp). max_event_streams 0: threads - 2 (at least 2
  // workers stay free for /metrics; with fewer than 3 threads no event stream is accepted).
  ApiOptions api;
  // --web-config-file (web_config.hpp): TLS, basic auth on every path, extra headers.
  // Null: plain HTTP, no authentication. A TLS context that cannot be built makes bind() fail.
  std::shared_ptr<const WebConfig> web;
};

class MetricsServer {
 public:
  MetricsServer(const Collector& collector, ServerOptions options);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Binds the socket; returns the bound port (useful with port 0).
  core::Result<int> bind(const ListenAddress& address);
  // Serves until stop() (blocks; run it on its own thread).
  bool run();
  void stop();
  bool is_running() const;
  bool uses_tls() const;  // https (the web config has tls_server_config)

  struct Impl;  // http_server.cpp

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuwatch::exporter
