#pragma once
// The exporter's HTTP side: /metrics (Prometheus text 0.0.4 or OpenMetrics), /healthz,
// /readyz, the dashboard and the JSON API. Handlers read the collector's latest samples;
// they never call NVML. The server is event-driven (exporter/http/: Boost.Beast over Asio,
// confined to that folder's .cpp files): one I/O thread serves every connection, a
// connection costs memory and never a thread, and every client is bounded by the limits
// of http/limits.hpp (docs/security.md). With a web config (web_config.hpp) it serves HTTPS
// and asks every request for basic auth.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.hpp"
#include "live/collector.hpp"
#include "exporter/http/limits.hpp"
#include "exporter/json_api_routes.hpp"
#include "exporter/prometheus_encoder.hpp"
#include "exporter/http/web_config.hpp"

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

inline constexpr std::size_t kDefaultEventStreams = 64;

struct ServerOptions {
  // Threads for what may be slow: /api/v1/history answered from the database, and a bcrypt
  // for credentials not verified before. Connections never take one (serve --threads).
  std::size_t threads = 2;
  http::ServerLimits limits;  // header bytes and count, body, deadlines, connection cap
  EncodeOptions encode;
  // /api/v1/... (json_api_routes.hpp). max_event_streams 0: kDefaultEventStreams.
  ApiOptions api;
  // --web-config-file (web_config.hpp): TLS, basic auth on every path, extra headers.
  // Null: plain HTTP, no authentication. A TLS context that cannot be built makes bind() fail.
  std::shared_ptr<const WebConfig> web;
  // Appended to every /metrics body (serve --remote-write's own health, push/pusher.hpp); may be empty.
  std::function<void(std::string&)> append_metrics;
};

class MetricsServer {
 public:
  MetricsServer(const live::Collector& collector, ServerOptions options);
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
