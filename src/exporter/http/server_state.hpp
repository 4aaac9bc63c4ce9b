#pragma once
// What the listener (listener.cpp) shares with every connection (connection.cpp): routes,
// limits, the open connections, authentication and the threads' executors. Asio's types are
// only forward-declared here; everything in it is used on the I/O thread, except
// `stopping`, the pool's handlers, which only run routes, and `bcrypt`'s threads, which
// only hash copies and post their answer back.
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "exporter/http/connection_registry.hpp"
#include "exporter/http/limits.hpp"
#include "exporter/http/router.hpp"

namespace boost::asio {
class io_context;
class thread_pool;
namespace ssl {
class context;
}
}  // namespace boost::asio

namespace gpuwatch::exporter {
class AuthFailureLimit;
class BasicAuthenticator;
class BcryptPool;
}

namespace gpuwatch::exporter::http {

struct ServerState {
  const Router* router = nullptr;
  ServerLimits limits;
  ConnectionRegistry* connections = nullptr;
  boost::asio::io_context* io = nullptr;
  boost::asio::thread_pool* pool = nullptr;      // slow routes, bcrypt
  boost::asio::ssl::context* tls = nullptr;      // null: plain HTTP
  BasicAuthenticator* auth = nullptr;            // null: no basic auth
  BcryptPool* bcrypt = nullptr;                  // set with auth: uncached checks, bounded queue
  AuthFailureLimit* auth_failures = nullptr;     // set with auth: wrong passwords per client address
  std::vector<std::pair<std::string, std::string>> extra_headers;  // the web config's, on every response
  std::atomic<bool> stopping{false};
};

// Serves one accepted TCP connection (its native socket NATIVE, of protocol IPV6 or IPv4)
// until the client closes it, a limit or deadline ends it, or stop(). Call on the I/O thread.
void start_connection(ServerState& state, int native, bool ipv6);

}  // namespace gpuwatch::exporter::http
