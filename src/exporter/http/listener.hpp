#pragma once
// The HTTP server's sockets and threads: binds the listening socket, accepts on one I/O
// thread (every connection is a coroutine there: connection.cpp), and runs slow routes on a
// small fixed pool and uncached bcrypt on a BcryptPool of its own (bounded queue, never joined
// on shutdown: bcrypt_pool.hpp). Boost.Asio stays in listener.cpp.
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/result.hpp"
#include "exporter/http/limits.hpp"
#include "exporter/http/router.hpp"
#include "exporter/http/web_config.hpp"

namespace gpuwatch::exporter {
class BasicAuthenticator;
}

namespace gpuwatch::exporter::http {

struct ListenerOptions {
  ServerLimits limits;
  std::size_t pool_threads = 2;  // slow routes (/api/v1/history from the database)
  std::vector<std::pair<std::string, std::string>> extra_headers;  // on every response
  const TlsServerConfig* tls = nullptr;  // null: plain HTTP
  std::string tls_source;                // the web config file, for messages
  BasicAuthenticator* auth = nullptr;    // null: no basic auth
};

class Listener {
 public:
  // ROUTER and AUTH must outlive the listener.
  Listener(const Router& router, ListenerOptions options);
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds and listens (SO_REUSEADDR, never SO_REUSEPORT; backlog SOMAXCONN). Port 0: any free
  // port. Returns the bound port. Fails when the TLS context could not be built.
  core::Result<int> bind(const std::string& host, int port);
  // Serves until stop(); blocks (run it on its own thread). False when it never bound.
  bool run();
  // Closes the listening socket and every connection, cancels their timers, and makes run()
  // return within about half a second whatever the clients do. Any thread; idempotent.
  void stop();
  bool is_running() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// Raises this process's soft limit of open files to its hard limit (each connection is one),
// returning the new soft limit.
std::size_t raise_open_file_limit();

}  // namespace gpuwatch::exporter::http
