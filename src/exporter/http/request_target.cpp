#include "exporter/http/request_target.hpp"

#include <cstdint>

namespace gpuwatch::exporter::http {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A decoded parameter name as an error message may show it: printable ASCII, at most 40
// characters ("?" for any other byte, "..." when cut), so a 400's one-line reason never carries
// a line break, a control character or kilobytes of the request.
std::string shown_name(std::string_view name) {
  constexpr std::size_t kShown = 40;
  std::string out;
  for (char c : name.substr(0, kShown)) out += c >= 0x20 && c < 0x7f ? c : '?';
  if (name.size() > kShown) out += "...";
  return out;
}

// Decodes one path or query component and checks it is text.
core::Result<std::string> decode_component(std::string_view text, bool plus_is_space, std::string_view what) {
  auto decoded = percent_decode(text, plus_is_space);
  if (!decoded) return core::make_error(std::string(what) + ": " + decoded.error().message);
  if (decoded->find('\0') != std::string::npos) return core::make_error(std::string(what) + ": contains a NUL byte");
  if (!is_valid_utf8(*decoded)) return core::make_error(std::string(what) + ": not valid UTF-8");
  return decoded;
}

}  // namespace

core::Result<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      const int high = i + 1 < text.size() ? hex_value(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
      if (high < 0 || low < 0) return core::make_error("bad percent-encoding (expected %XX with two hex digits)");
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t code = 0;
    if (c >= 0xC2 && c <= 0xDF) {
      length = 2;
      code = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      length = 3;
      code = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      length = 4;
      code = c & 0x07;
    } else {
      return false;  // a continuation byte first, C0/C1 (overlong) or F5..FF
    }
    if (i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80) return false;
      code = (code << 6) | (next & 0x3F);
    }
    if ((length == 3 && code < 0x800) || (length == 4 && (code < 0x10000 || code > 0x10FFFF))) return false;
    if (code >= 0xD800 && code <= 0xDFFF) return false;  // UTF-16 surrogates
    i += length;
  }
  return true;
}

core::Result<RequestTarget> parse_request_target(std::string_view target) {
  if (target.empty()) return core::make_error("empty request target");
  // absolute-form: drop "scheme://authority"
  for (std::string_view scheme : {"http://", "https://"}) {
    if (target.size() >= scheme.size() && target.substr(0, scheme.size()) == scheme) {
      auto slash = target.find('/', scheme.size());
      target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
      break;
    }
  }
  if (target.front() != '/') return core::make_error("request target must start with '/'");
  auto fragment = target.find('#');
  if (fragment != std::string_view::npos) target = target.substr(0, fragment);
  auto question = target.find('?');
  RequestTarget result;
  auto path = decode_component(target.substr(0, question), false, "path");
  if (!path) return path.error();
  result.path = std::move(*path);
  if (question == std::string_view::npos) return result;
  std::string_view query = target.substr(question + 1);
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    auto equals = pair.find('=');
    auto name = decode_component(pair.substr(0, equals), true, "query parameter name");
    if (!name) return name.error();
    std::string value;
    if (equals != std::string_view::npos) {
      auto decoded = decode_component(pair.substr(equals + 1), true, "query parameter '" + shown_name(*name) + "'");
      if (!decoded) return decoded.error();
      value = std::move(*decoded);
    }
    result.query.emplace_back(std::move(*name), std::move(value));
  }
  return result;
}

}  // namespace gpuwatch::exporter::http
