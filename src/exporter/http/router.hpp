#pragma once
// Routes by method and decoded path: exact paths and path prefixes ("/assets/"). GET routes
// answer HEAD too (without the body). A path that exists under another method is a 405 with
// Allow; an unknown path is a 404. A route marked Slow (it may read the database) is run off
// the I/O thread by the connection, on a small fixed pool, so it never delays /metrics.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/http/message.hpp"

namespace gpuwatch::exporter::http {

using Handler = std::function<void(const HttpRequest&, HttpResponse&)>;

enum class Speed { Fast, Slow };

struct Route {
  std::string path;  // exact, or a prefix when prefix is true
  bool prefix = false;
  Speed speed = Speed::Fast;
  Handler handler;
};

class Router {
 public:
  void get(std::string path, Handler handler, Speed speed = Speed::Fast);
  void get_prefix(std::string prefix, Handler handler, Speed speed = Speed::Fast);

  struct Match {
    const Route* route = nullptr;  // null: not found or method not allowed
    int status = 404;              // 200 (route set), 404 or 405
  };
  Match find(std::string_view method, std::string_view path) const;

 private:
  std::vector<Route> routes_;  // GET routes; exact ones are tried before prefixes
};

}  // namespace gpuwatch::exporter::http
