#include "exporter/dashboard_routes.hpp"


#include <cstdint>
#include <map>

#include "exporter/http/router.hpp"
#include "web/web_assets.hpp"

namespace gpuwatch::exporter {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// A strong validator of CONTENT: 64-bit FNV-1a, quoted.
std::string etag_of(std::string_view content) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : content) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  static const char digits[] = "0123456789abcdef";
  std::string tag = "\"";
  for (int shift = 60; shift >= 0; shift -= 4) tag += digits[(hash >> shift) & 0xf];
  return tag + "\"";
}

// ETags of every embedded file, computed once (the bundle never changes while running).
std::string etag_of_asset(std::string_view name, std::string_view content) {
  static const std::map<std::string_view, std::string> tags = [] {
    std::map<std::string_view, std::string> all;
    for (const auto& file : web::embedded_assets()) all.emplace(file.name, etag_of(file.content));
    return all;
  }();
  auto found = tags.find(name);
  return found != tags.end() ? found->second : etag_of(content);
}

// If-None-Match: "*" or a comma-separated list of (possibly weak, W/"...") tags.
bool matches_etag(std::string_view if_none_match, std::string_view etag) {
  while (!if_none_match.empty()) {
    auto comma = if_none_match.find(',');
    std::string_view item = trim(if_none_match.substr(0, comma));
    if (item.substr(0, 2) == "W/") item.remove_prefix(2);
    if (item == "*" || item == etag) return true;
    if (comma == std::string_view::npos) break;
    if_none_match.remove_prefix(comma + 1);
  }
  return false;
}

StaticAnswer answer_file(std::string_view name, std::string_view if_none_match) {
  StaticAnswer answer;
  auto type = asset_content_type(name);
  auto content = web::find_asset(name);
  if (!type || !content) return answer;
  answer.content_type = std::string(*type);
  answer.etag = etag_of_asset(name, *content);
  if (matches_etag(if_none_match, answer.etag)) {
    answer.status = 304;
  } else {
    answer.status = 200;
    answer.body = *content;
  }
  return answer;
}

void send(const StaticAnswer& answer, http::HttpResponse& res) {
  res.status = answer.status;
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Content-Security-Policy", std::string(kDashboardCsp));
  if (answer.status == 404) {
    res.set_content("not found\n", "text/plain; charset=utf-8");
    return;
  }
  res.set_header("Cache-Control", std::string(kDashboardCacheControl));
  res.set_header("ETag", answer.etag);
  // A copy of the embedded bytes (small: uPlot ~50 kB); a 304 has none.
  if (answer.status == 200) res.set_content(std::string(answer.body), answer.content_type);
  else res.content_type.clear();
}

}  // namespace

std::optional<std::string_view> asset_content_type(std::string_view name) {
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".txt")) return "text/plain; charset=utf-8";
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  return std::nullopt;
}

StaticAnswer answer_static(std::string_view path, std::string_view if_none_match) {
  if (path == "/") return answer_file(kDashboardPage, if_none_match);
  if (path.substr(0, kAssetPrefix.size()) != kAssetPrefix) return {};
  std::string_view name = path.substr(kAssetPrefix.size());
  // Only embedded names are looked up; the page is served at / alone (its links are relative).
  if (name.empty() || name == kDashboardPage || name.find('/') != std::string_view::npos) return {};
  return answer_file(name, if_none_match);
}

void add_dashboard_routes(http::Router& router) {
  auto handler = [](const http::HttpRequest& req, http::HttpResponse& res) {
    send(answer_static(req.path, req.header("If-None-Match")), res);
  };
  router.get("/", handler);
  router.get_prefix(std::string(kAssetPrefix), handler);  // answer_static checks the name (404 when not embedded)
}

}  // namespace gpuwatch::exporter
