#include "exporter/http/router.hpp"

#include <utility>

namespace gpuwatch::exporter::http {

void Router::get(std::string path, Handler handler, Speed speed) {
  routes_.push_back(Route{std::move(path), false, speed, std::move(handler)});
}

void Router::get_prefix(std::string prefix, Handler handler, Speed speed) {
  routes_.push_back(Route{std::move(prefix), true, speed, std::move(handler)});
}

Router::Match Router::find(std::string_view method, std::string_view path) const {
  const Route* found = nullptr;
  for (const auto& route : routes_) {
    if (!route.prefix && route.path == path) {
      found = &route;
      break;
    }
  }
  if (found == nullptr) {
    for (const auto& route : routes_) {
      if (route.prefix && path.size() > route.path.size() && path.substr(0, route.path.size()) == route.path) {
        found = &route;
        break;
      }
    }
  }
  if (found == nullptr) return {};
  if (method != "GET" && method != "HEAD") return {nullptr, 405};
  return {found, 200};
}

}  // namespace gpuwatch::exporter::http
