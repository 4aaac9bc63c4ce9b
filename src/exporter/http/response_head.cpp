#include "exporter/http/response_head.hpp"

#include <fmt/core.h>

#include "exporter/http/message.hpp"

namespace gpuwatch::exporter::http {
std::string_view reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

bool asks_to_close(const HttpResponse& response) {
  for (const auto& [name, value] : response.headers) {
    if (iequals(name, "Connection") && iequals(value, "close")) return true;
  }
  return false;
}

std::string response_head(const HttpResponse& response, bool keep_alive,
                          const std::vector<std::pair<std::string, std::string>>& extra) {
  std::string head = fmt::format("HTTP/1.1 {} {}\r\n", response.status, reason_phrase(response.status));
  auto add = [&head](std::string_view name, std::string_view value) {
    head.append(name).append(": ").append(value).append("\r\n");
  };
  for (const auto& [name, value] : extra) add(name, value);
  for (const auto& [name, value] : response.headers) {
    if (!iequals(name, "Connection")) add(name, value);
  }
  if (!response.content_type.empty()) add("Content-Type", response.content_type);
  if (response.stream) {
    add("Transfer-Encoding", "chunked");
  } else if (response.status != 304 && response.status != 204) {
    add("Content-Length", std::to_string(response.content().size()));
  }
  if (!keep_alive || asks_to_close(response)) add("Connection", "close");
  head += "\r\n";
  return head;
}

std::string chunk(std::string_view data) {
  std::string out = fmt::format("{:x}\r\n", data.size());
  out.append(data).append("\r\n");
  return out;
}

}  // namespace gpuwatch::exporter::http
