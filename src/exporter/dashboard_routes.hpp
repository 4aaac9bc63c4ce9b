#pragma once
// The live dashboard of `gpuwatch serve` (issue 4): GET / is the page, GET /assets/NAME its
// scripts and styles (uPlot, dashboard.js, dashboard.css). Everything comes from the bundle
// built into the binary (src/web, web::find_asset): there is no file-system path handling,
// a name that is not embedded (or not a script, style or text file) is 404. The page itself
// reads /api/v1/history, /api/v1/events and /api/v1/snapshot (json_api_routes.hpp).
//
// answer_static() is the whole decision, without HTTP: add_dashboard_routes() only copies its
// answer into the server's response (http/message.hpp).
#include <optional>
#include <string>
#include <string_view>

namespace gpuwatch::exporter::http {
class Router;
}

namespace gpuwatch::exporter {

inline constexpr std::string_view kDashboardPage = "dashboard.html";  // the embedded page served at /
inline constexpr std::string_view kAssetPrefix = "/assets/";

// Scripts and styles only from this origin, no inline script or style element, no framing.
inline constexpr std::string_view kDashboardCsp =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
// Always revalidate (cheap: the ETag is answered with 304), so an upgraded binary's assets are
// never mixed with a cached older page.
inline constexpr std::string_view kDashboardCacheControl = "no-cache";

struct StaticAnswer {
  int status = 404;
  std::string content_type;  // empty on 404
  std::string_view body;     // the embedded bytes (static lifetime); empty on 304 and 404
  std::string etag;          // "\"<16 hex digits>\"" of the content; empty on 404
};

// The Content-Type of an asset NAME by its extension (.js, .css, .txt, .html); nullopt for
// any other, which is never served.
std::optional<std::string_view> asset_content_type(std::string_view name);

// PATH "/": the dashboard page; "/assets/NAME": the embedded script, style or text file NAME
// (not the page itself, whose relative links only work at /). 304 without a body when
// IF_NONE_MATCH (the request header; a list, W/ prefixes and * allowed) holds its ETag.
StaticAnswer answer_static(std::string_view path, std::string_view if_none_match);

// Registers GET / and GET /assets/<name> on ROUTER.
void add_dashboard_routes(http::Router& router);

}  // namespace gpuwatch::exporter
