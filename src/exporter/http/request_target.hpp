#pragma once
// The request-target of an HTTP request line, checked and decoded (pure; no I/O):
// origin-form "/path?query" (and absolute-form "http://host/path?query", whose scheme and
// authority are dropped). Percent-escapes are decoded in the path and in query names and
// values ('+' is a space in the query); a bad escape ("%zz", "%f"), a NUL, or bytes that are
// not valid UTF-8 once decoded make the whole request a 400, with a short message naming the
// problem (never the offending bytes, which may not be printable).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::exporter::http {

struct RequestTarget {
  std::string path;
  std::vector<std::pair<std::string, std::string>> query;
};

core::Result<RequestTarget> parse_request_target(std::string_view target);

// Decodes %XX escapes (and '+' as a space when PLUS_IS_SPACE); fails on a bad escape.
core::Result<std::string> percent_decode(std::string_view text, bool plus_is_space);

// True when TEXT is well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF).
bool is_valid_utf8(std::string_view text);

}  // namespace gpuwatch::exporter::http
