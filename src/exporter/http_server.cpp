#include "exporter/http_server.hpp"

#include <httplib.h>

// Debian's libcpp-httplib is a compiled library built with these: every translation unit that
// includes httplib.h must see them too (pkg-config cpp-httplib Cflags), or class layouts differ
// (ODR; shared/reference/dependencies.md §2). SSLServer needs the first.
#if !defined(CPPHTTPLIB_OPENSSL_SUPPORT) || !defined(CPPHTTPLIB_ZLIB_SUPPORT) || !defined(CPPHTTPLIB_BROTLI_SUPPORT)
#error "compile with pkg-config cpp-httplib's Cflags (link PkgConfig::HTTPLIB)"
#endif

#include <sys/socket.h>

#include <charconv>
#include <utility>

#include "exporter/basic_auth.hpp"
#include "exporter/dashboard_routes.hpp"
#include "exporter/listen_backlog.hpp"
#include "exporter/metrics_cache.hpp"
#include "exporter/tls_context.hpp"

namespace gpuwatch::exporter {

struct MetricsServer::Impl {
  Impl(const Collector& c, ServerOptions o)
      : collector(c), options(std::move(o)), api(c, api_options(options)), owned_server(make_server()),
        server(*owned_server) {}
  static ApiOptions api_options(const ServerOptions& o) {
    ApiOptions a = o.api;
    if (a.max_event_streams == 0) a.max_event_streams = o.threads > 2 ? o.threads - 2 : 0;
    return a;
  }
  const Collector& collector;
  ServerOptions options;
  ApiRoutes api;
  std::string tls_error;  // set when the web config's TLS context could not be built
  std::unique_ptr<BasicAuthenticator> auth;  // null: no basic auth; outlives the server using it
  // httplib::SSLServer (a Server) when the web config has tls_server_config, else a plain one.
  std::unique_ptr<httplib::Server> owned_server;
  httplib::Server& server;

 private:
  std::unique_ptr<httplib::Server> make_server() {
    if (!options.web || !options.web->tls) return std::make_unique<httplib::Server>();
    const TlsServerConfig& tls = *options.web->tls;
    return std::make_unique<httplib::SSLServer>([this, &tls](SSL_CTX& ctx) {
      auto configured = configure_tls_context(ctx, tls);
      if (!configured) tls_error = options.web->source + ": tls_server_config: " + configured.error().message;
      return configured.has_value();
    });
  }
};

namespace {

void add_routes(MetricsServer::Impl& impl) {
  const Collector& collector = impl.collector;
  const EncodeOptions encode = impl.options.encode;
  // Concurrent scrapes within a short window share one encoding (metrics_cache.hpp).
  auto cache = std::make_shared<MetricsBodyCache>(metrics_reuse_window(impl.options.api.interval));
  impl.server.Get("/metrics", [&collector, encode, cache](const httplib::Request& req, httplib::Response& res) {
    auto body = cache->get(MetricsBodyCache::Clock::now(), [&](std::string& out) {
      collector.with_view([&](const ExportView& view) { encode_prometheus(view, encode, out); });
    });
    if (accepts_openmetrics(req.get_header_value("Accept"))) {
      std::string text = *body;
      to_openmetrics(text);
      res.set_content(text, std::string(kOpenMetricsContentType));
    } else {
      res.set_content(*body, std::string(kPrometheusContentType));
    }
  });
  impl.server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain; charset=utf-8");
  });
  impl.server.Get("/readyz", [&collector](const httplib::Request&, httplib::Response& res) {
    if (collector.ready()) {
      res.set_content("ready\n", "text/plain; charset=utf-8");
    } else {
      res.status = 503;
      res.set_content("not ready: waiting for the first sample of every GPU\n", "text/plain; charset=utf-8");
    }
  });
  add_dashboard_routes(impl.server);  // / and /assets/NAME: the live dashboard (dashboard_routes.hpp)
}

}  // namespace

core::Result<ListenAddress> parse_listen_address(std::string_view text) {
  ListenAddress address;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return core::make_error("expected [IPv6]:PORT, got '" + std::string(text) + "'");
    address.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos || text.find(':') != colon)
      return core::make_error("expected HOST:PORT (e.g. 127.0.0.1:9835), got '" + std::string(text) + "'");
    address.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
  }
  if (address.host.empty()) return core::make_error("no host in '" + std::string(text) + "' (use 0.0.0.0 for every address)");
  int port = -1;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535)
    return core::make_error("bad port '" + std::string(port_text) + "' (0-65535)");
  address.port = port;
  return address;
}

bool is_loopback_host(std::string_view host) {
  if (host == "localhost" || host == "::1") return true;
  if (host.substr(0, 4) != "127.") return false;
  int dots = 0;
  for (char c : host) {
    if (c == '.') ++dots;
    else if (c < '0' || c > '9') return false;
  }
  return dots == 3;
}

MetricsServer::MetricsServer(const Collector& collector, ServerOptions options)
    : impl_(std::make_unique<Impl>(collector, std::move(options))) {
  auto& server = impl_->server;
  const std::size_t threads = impl_->options.threads == 0 ? 1 : impl_->options.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, with which a second
  // exporter on the same port starts "successfully" and steals half the scrapes.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server.set_tcp_nodelay(true);  // without it keep-alive scrapes stall on Nagle + delayed ACK
  server.set_payload_max_length(impl_->options.max_request_body);
  server.set_read_timeout(impl_->options.read_timeout_s, 0);
  server.set_write_timeout(impl_->options.write_timeout_s, 0);
  server.set_keep_alive_timeout(impl_->options.keep_alive_timeout_s);
  if (const auto& web = impl_->options.web) {
    if (!web->headers.empty()) {
      httplib::Headers headers;
      for (const auto& [name, value] : web->headers) headers.emplace(name, value);
      server.set_default_headers(std::move(headers));  // on every response, 401 and 404 included
    }
    if (!web->basic_auth_users.empty()) {
      impl_->auth = std::make_unique<BasicAuthenticator>(web->basic_auth_users);
      // Every path, as exporter-toolkit does: /healthz too.
      server.set_pre_routing_handler([auth = impl_->auth.get()](const httplib::Request& req, httplib::Response& res) {
        if (auth->allows(req.get_header_value("Authorization"))) return httplib::Server::HandlerResponse::Unhandled;
        res.status = 401;
        res.set_header("WWW-Authenticate", std::string(kBasicAuthChallenge));
        res.set_content("401 Unauthorized\n", "text/plain; charset=utf-8");
        return httplib::Server::HandlerResponse::Handled;
      });
    }
  }
  add_routes(*impl_);
  impl_->api.add_to(server);
}

MetricsServer::~MetricsServer() { stop(); }

core::Result<int> MetricsServer::bind(const ListenAddress& address) {
  if (!impl_->tls_error.empty()) return core::make_error(impl_->tls_error);
  int port = address.port;
  if (port == 0) {
    port = impl_->server.bind_to_any_port(address.host);
    if (port <= 0) return core::make_error("cannot listen on " + address.host + " (no free port or bad address)");
    widen_listen_backlog(port, SOMAXCONN);  // httplib's backlog of 5 drops bursts of connects (listen_backlog.hpp)
    return port;
  }
  if (!impl_->server.bind_to_port(address.host, port))
    return core::make_error("cannot listen on " + address.host + ":" + std::to_string(port) +
                            " (address in use, not an address of this machine, or no permission)");
  widen_listen_backlog(port, SOMAXCONN);
  return port;
}

bool MetricsServer::run() { return impl_->server.listen_after_bind(); }

void MetricsServer::stop() {
  if (!impl_) return;
  impl_->api.stop();  // event streams end first: they hold workers the server waits for
  impl_->server.stop();
}

bool MetricsServer::is_running() const { return impl_->server.is_running(); }

bool MetricsServer::uses_tls() const { return impl_->options.web && impl_->options.web->tls; }

}  // namespace gpuwatch::exporter
