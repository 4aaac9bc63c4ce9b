#include "exporter/http/listener.hpp"

#include <sys/resource.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>

#include <atomic>
#include <chrono>
#include <optional>

#include "exporter/http/auth_failure_limit.hpp"
#include "exporter/http/bcrypt_pool.hpp"
#include "exporter/http/server_state.hpp"
#include "exporter/http/tls_context.hpp"

namespace gpuwatch::exporter::http {
namespace {
namespace net = boost::asio;
using tcp = net::ip::tcp;
}  // namespace

struct Listener::Impl {
  Impl(const Router& router, ListenerOptions o)
      : options(std::move(o)), connections(options.limits.max_connections), pool(options.pool_threads == 0 ? 1 : options.pool_threads) {
    state.router = &router;
    state.limits = options.limits;
    state.connections = &connections;
    state.io = &io;
    state.pool = &pool;
    state.auth = options.auth;
    if (options.auth != nullptr) {
      bcrypt.emplace();
      state.bcrypt = &*bcrypt;
      state.auth_failures = &auth_failures;
    }
    state.extra_headers = options.extra_headers;
    if (options.tls != nullptr) {
      tls.emplace(net::ssl::context::tls_server);
      auto configured = configure_tls_context(*tls->native_handle(), *options.tls);
      if (!configured) tls_error = options.tls_source + ": tls_server_config: " + configured.error().message;
      state.tls = &*tls;
    }
  }
  ~Impl() {
    // Before io dies: no bcrypt answer is posted to it from now on, and none is waited for.
    if (bcrypt) bcrypt->close();
    pool.stop();
    pool.join();
  }

  void accept_next() {
    acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
      if (state.stopping || !acceptor.is_open()) return;
      if (!ec) {
        const bool ipv6 = socket.local_endpoint().protocol() == tcp::v6();
        start_connection(state, socket.release(), ipv6);
      } else if (ec == net::error::no_descriptors) {
        // Out of file descriptors: pause accepting a moment instead of spinning.
        backoff.expires_after(std::chrono::milliseconds(100));
        backoff.async_wait([this](const boost::system::error_code&) { accept_next(); });
        return;
      }
      accept_next();
    });
  }

  // Declared before io, so they outlive it: the coroutines io's destructor destroys still
  // unregister from connections through state, and their TLS streams use tls.
  ListenerOptions options;
  ConnectionRegistry connections;
  net::thread_pool pool;
  std::optional<BcryptPool> bcrypt;  // with basic auth; closed, never joined, on shutdown
  AuthFailureLimit auth_failures;
  std::optional<net::ssl::context> tls;
  std::string tls_error;
  ServerState state;
  net::io_context io{1};
  tcp::acceptor acceptor{io};
  net::steady_timer backoff{io};
  net::steady_timer stop_deadline{io};
  bool bound = false;
  std::atomic<bool> running{false};
  std::atomic<bool> stop_requested{false};
};

Listener::Listener(const Router& router, ListenerOptions options)
    : impl_(std::make_unique<Impl>(router, std::move(options))) {}

Listener::~Listener() {
  stop();
  // The pool's threads may still be finishing a route: they are joined (Impl) before io dies.
  impl_->pool.stop();
  impl_->pool.join();
}

core::Result<int> Listener::bind(const std::string& host, int port) {
  if (!impl_->tls_error.empty()) return core::make_error(impl_->tls_error);
  raise_open_file_limit();
  boost::system::error_code ec;
  tcp::resolver resolver(impl_->io);
  auto results = resolver.resolve(host, std::to_string(port), tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) return core::make_error("cannot listen on " + host + ": not an address of this machine (" + ec.message() + ")");
  auto& acceptor = impl_->acceptor;
  std::string last_error;
  for (const auto& entry : results) {
    acceptor.close(ec);
    tcp::endpoint endpoint = entry.endpoint();
    acceptor.open(endpoint.protocol(), ec);
    if (ec) { last_error = ec.message(); continue; }
    acceptor.set_option(tcp::acceptor::reuse_address(true), ec);  // never SO_REUSEPORT: a second exporter must fail
    acceptor.bind(endpoint, ec);
    if (ec) { last_error = ec.message(); continue; }
    acceptor.listen(SOMAXCONN, ec);
    if (ec) { last_error = ec.message(); continue; }
    impl_->bound = true;
    return static_cast<int>(acceptor.local_endpoint().port());
  }
  acceptor.close(ec);
  if (port == 0) return core::make_error("cannot listen on " + host + " (" + last_error + ")");
  return core::make_error("cannot listen on " + host + ":" + std::to_string(port) + " (" + last_error +
                          ": address in use, not an address of this machine, or no permission)");
}

bool Listener::run() {
  if (!impl_->bound) return false;
  impl_->running = true;
  if (!impl_->stop_requested) {
    impl_->accept_next();
    impl_->io.run();
  }
  impl_->running = false;
  return true;
}

void Listener::stop() {
  if (impl_->stop_requested.exchange(true)) return;
  impl_->state.stopping = true;
  if (impl_->bcrypt) impl_->bcrypt->close();  // waiting checks are dropped; a hash running is not waited for
  Impl* impl = impl_.get();
  net::post(impl->io, [impl] {
    boost::system::error_code ignored;
    impl->acceptor.close(ignored);
    impl->backoff.cancel();
    impl->connections.close_all();
    // What closing did not end by then (a route still running on the pool) is cut short.
    impl->stop_deadline.expires_after(std::chrono::milliseconds(500));
    impl->stop_deadline.async_wait([impl](const boost::system::error_code&) { impl->io.stop(); });
  });
}

bool Listener::is_running() const { return impl_->running && !impl_->stop_requested; }

std::size_t raise_open_file_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 0;
  if (limit.rlim_cur < limit.rlim_max) {
    rlimit raised = limit;
    raised.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) limit = raised;
  }
  return static_cast<std::size_t>(limit.rlim_cur);
}

}  // namespace gpuwatch::exporter::http
