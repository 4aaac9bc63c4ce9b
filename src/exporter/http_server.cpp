#include "exporter/http_server.hpp"

#include <charconv>
#include <utility>

#include "exporter/http/basic_auth.hpp"
#include "exporter/dashboard_routes.hpp"
#include "exporter/http/listener.hpp"
#include "exporter/http/router.hpp"
#include "exporter/metrics_cache.hpp"

namespace gpuwatch::exporter {

struct MetricsServer::Impl {
  Impl(const live::Collector& c, ServerOptions o) : collector(c), options(std::move(o)), api(c, api_options(options)) {}
  static ApiOptions api_options(const ServerOptions& o) {
    ApiOptions a = o.api;
    if (a.max_event_streams == 0) a.max_event_streams = kDefaultEventStreams;
    return a;
  }
  const live::Collector& collector;
  ServerOptions options;
  ApiRoutes api;
  http::Router router;
  std::unique_ptr<BasicAuthenticator> auth;  // null: no basic auth; outlives the listener using it
  std::unique_ptr<http::Listener> listener;
};

namespace {

void add_routes(MetricsServer::Impl& impl) {
  const live::Collector& collector = impl.collector;
  const EncodeOptions encode = impl.options.encode;
  // Concurrent scrapes within a short window share one encoding (metrics_cache.hpp).
  auto cache = std::make_shared<MetricsBodyCache>(metrics_reuse_window(impl.options.api.interval));
  impl.router.get("/metrics", [&collector, encode, cache, append = impl.options.append_metrics](const http::HttpRequest& req, http::HttpResponse& res) {
    auto body = cache->get(MetricsBodyCache::Clock::now(), [&](std::string& out) {
      collector.with_view([&](const live::LiveView& view) { encode_prometheus(view, encode, out); });
      if (append) append(out);
    });
    if (accepts_openmetrics(req.header("Accept"))) {
      std::string text = *body;
      to_openmetrics(text);
      res.set_content(std::move(text), kOpenMetricsContentType);
    } else {
      res.set_shared_content(std::move(body), kPrometheusContentType);  // no copy
    }
  });
  impl.router.get("/healthz", [](const http::HttpRequest&, http::HttpResponse& res) {
    res.set_content("ok\n", "text/plain; charset=utf-8");
  });
  impl.router.get("/readyz", [&collector](const http::HttpRequest&, http::HttpResponse& res) {
    if (collector.ready()) {
      res.set_content("ready\n", "text/plain; charset=utf-8");
    } else {
      res.status = 503;
      res.set_content("not ready: waiting for the first sample of every GPU\n", "text/plain; charset=utf-8");
    }
  });
  add_dashboard_routes(impl.router);  // / and /assets/NAME: the live dashboard (dashboard_routes.hpp)
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

MetricsServer::MetricsServer(const live::Collector& collector, ServerOptions options)
    : impl_(std::make_unique<Impl>(collector, std::move(options))) {
  http::ListenerOptions listener;
  listener.limits = impl_->options.limits;
  listener.pool_threads = impl_->options.threads == 0 ? 1 : impl_->options.threads;
  if (const auto& web = impl_->options.web) {
    listener.extra_headers = web->headers;  // on every response, 401 and 404 included
    if (web->tls) {
      listener.tls = &*web->tls;
      listener.tls_source = web->source;
    }
    if (!web->basic_auth_users.empty()) {  // every path, as exporter-toolkit does: /healthz too
      impl_->auth = std::make_unique<BasicAuthenticator>(web->basic_auth_users);
      listener.auth = impl_->auth.get();
    }
  }
  add_routes(*impl_);
  impl_->api.add_to(impl_->router);
  impl_->listener = std::make_unique<http::Listener>(impl_->router, std::move(listener));
}

MetricsServer::~MetricsServer() { stop(); }

core::Result<int> MetricsServer::bind(const ListenAddress& address) { return impl_->listener->bind(address.host, address.port); }

bool MetricsServer::run() { return impl_->listener->run(); }

void MetricsServer::stop() {
  if (!impl_) return;
  impl_->api.stop();  // event streams end at their next poll
  impl_->listener->stop();
}

bool MetricsServer::is_running() const { return impl_->listener->is_running(); }

bool MetricsServer::uses_tls() const { return impl_->options.web && impl_->options.web->tls; }

}  // namespace gpuwatch::exporter
