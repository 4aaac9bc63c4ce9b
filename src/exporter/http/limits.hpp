#pragma once
// Every bound the HTTP server puts on a client (docs/security.md lists them with their
// options). A connection costs memory, never a thread: these keep that memory, and the
// time a client can hold a connection without finishing a request, bounded.
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace gpuwatch::exporter::http {

struct ServerLimits {
  std::size_t max_header_bytes = 16 * 1024;  // request line + headers; beyond: 431
  std::size_t max_header_count = 100;        // header fields; beyond: 431
  std::size_t max_body_bytes = 4096;         // Content-Length or chunked, decoded; beyond: 413
  // A request's line and headers must arrive within this, however slowly the bytes trickle
  // in (a total deadline, not an inactivity timeout: slowloris). Beyond: the connection is closed.
  std::chrono::milliseconds header_deadline{10'000};
  // A kept-alive connection may wait this long for its next request.
  std::chrono::milliseconds idle_timeout{5'000};
  // A response (or one event of a stream) must be taken by the client within this.
  std::chrono::milliseconds write_timeout{10'000};
  // Open connections. At the cap a new connection first evicts the one that has waited
  // longest for (or in) a request's headers; when none does (all are being answered or
  // streaming), the new one gets a 503 with Retry-After and is closed.
  std::size_t max_connections = 512;
};

// Rejects nonsense (a zero limit or deadline), naming the field.
core::Result<void> check_limits(const ServerLimits& limits);

// Why a request was refused before it reached a route.
enum class Refusal {
  HeaderTooLarge,     // 431
  TooManyHeaders,     // 431
  BodyTooLarge,       // 413
  MalformedRequest,   // 400: not HTTP/1.x, bad chunk encoding, bad header syntax
  BadTarget,          // 400: bad percent-encoding, not UTF-8, not origin-form
  UnsupportedVersion  // 505
};

struct RefusalAnswer {
  int status;
  std::string message;  // one line, no internal detail
};

// The status and the message of REFUSAL under LIMITS; DETAIL (for BadTarget, e.g.
// "query parameter 'gpu': not valid UTF-8") is appended when not empty.
RefusalAnswer refusal_answer(Refusal refusal, const ServerLimits& limits, std::string_view detail = {});

}  // namespace gpuwatch::exporter::http
