#pragma once
// What a route sees of an HTTP exchange, without the HTTP library: the parsed request
// (method, decoded path and query, headers) and the response it fills in. The connection
// (connection.cpp) turns bytes into an HttpRequest and an HttpResponse into bytes; routes
// (json_api_routes, dashboard_routes, http_server.cpp) only use these types.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuwatch::exporter::http {

// ASCII case-insensitive equality, as HTTP compares header names.
bool iequals(std::string_view a, std::string_view b);

struct HttpRequest {
  std::string method;  // "GET", "HEAD", ...
  std::string path;    // percent-decoded, valid UTF-8 ("/api/v1/history")
  std::vector<std::pair<std::string, std::string>> query;    // decoded, in order
  std::vector<std::pair<std::string, std::string>> headers;  // as received

  // The first header NAME (case-insensitive), "" when absent.
  std::string_view header(std::string_view name) const;
  // The first query parameter NAME, "" when absent.
  std::string_view param(std::string_view name) const;
};

// An endless response (server-sent events): the connection calls poll() at once and then
// every poll_interval, and sends what it returns as one chunk. nullopt ends the stream (the
// connection is then closed). Called on the I/O thread: it must not block.
class StreamSource {
 public:
  virtual ~StreamSource() = default;
  virtual std::optional<std::string> poll(std::chrono::steady_clock::time_point now) = 0;
  virtual std::chrono::milliseconds poll_interval() const { return std::chrono::milliseconds(100); }
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type/-Length
  std::string content_type;
  std::string body;
  std::shared_ptr<const std::string> shared_body;  // when set, sent instead of body (no copy)
  std::shared_ptr<StreamSource> stream;            // when set: a chunked, endless answer

  void set_header(std::string name, std::string value);
  void set_content(std::string text, std::string_view type);
  void set_shared_content(std::shared_ptr<const std::string> text, std::string_view type);
  void set_stream(std::shared_ptr<StreamSource> source, std::string_view type);
  std::string_view content() const { return shared_body ? std::string_view(*shared_body) : std::string_view(body); }
};

}  // namespace gpuwatch::exporter::http
