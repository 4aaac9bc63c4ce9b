#include "exporter/http/message.hpp"

namespace gpuwatch::exporter::http {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

std::string_view HttpRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) return value;
  }
  return {};
}

std::string_view HttpRequest::param(std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return value;
  }
  return {};
}

void HttpResponse::set_header(std::string name, std::string value) {
  for (auto& [key, existing] : headers) {
    if (iequals(key, name)) {
      existing = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
}

void HttpResponse::set_content(std::string text, std::string_view type) {
  body = std::move(text);
  shared_body.reset();
  content_type = std::string(type);
}

void HttpResponse::set_shared_content(std::shared_ptr<const std::string> text, std::string_view type) {
  shared_body = std::move(text);
  body.clear();
  content_type = std::string(type);
}

void HttpResponse::set_stream(std::shared_ptr<StreamSource> source, std::string_view type) {
  stream = std::move(source);
  content_type = std::string(type);
}

}  // namespace gpuwatch::exporter::http
