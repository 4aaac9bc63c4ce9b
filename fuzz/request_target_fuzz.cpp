// libFuzzer target: the request-target of an HTTP request line (exporter/http/request_target.cpp),
// as `serve` parses it before any route: path and query split, percent-decoding, UTF-8 check;
// then the query lookups routes make (HttpRequest::param, exporter/http/message.cpp) and the
// 400 answer a refused target gets (exporter/http/limits.cpp).
// Promises checked beyond "no crash": an accepted path starts with '/' and every decoded part
// is valid UTF-8 without NUL; param() finds the first value; is_valid_utf8 agrees with the
// byte table of Unicode's well-formed sequences (a second, independent reading); the 400
// answer is one short printable line (no offending bytes echoed).
#include <string>

#include "exporter/http/limits.hpp"
#include "exporter/http/message.hpp"
#include "exporter/http/request_target.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using namespace gpuwatch;
using namespace gpuwatch::exporter::http;

// Unicode 15, table 3-7: the well-formed UTF-8 byte sequences, range by range.
bool well_formed_utf8(std::string_view text) {
  auto in = [](unsigned c, unsigned lo, unsigned hi) { return c >= lo && c <= hi; };
  std::size_t i = 0;
  while (i < text.size()) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    auto at = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
    std::size_t n = 0;
    if (b0 <= 0x7F) n = 1;
    else if (in(b0, 0xC2, 0xDF) && in(at(1), 0x80, 0xBF)) n = 2;
    else if (b0 == 0xE0 && in(at(1), 0xA0, 0xBF) && in(at(2), 0x80, 0xBF)) n = 3;
    else if ((in(b0, 0xE1, 0xEC) || in(b0, 0xEE, 0xEF)) && in(at(1), 0x80, 0xBF) && in(at(2), 0x80, 0xBF)) n = 3;
    else if (b0 == 0xED && in(at(1), 0x80, 0x9F) && in(at(2), 0x80, 0xBF)) n = 3;
    else if (b0 == 0xF0 && in(at(1), 0x90, 0xBF) && in(at(2), 0x80, 0xBF) && in(at(3), 0x80, 0xBF)) n = 4;
    else if (in(b0, 0xF1, 0xF3) && in(at(1), 0x80, 0xBF) && in(at(2), 0x80, 0xBF) && in(at(3), 0x80, 0xBF)) n = 4;
    else if (b0 == 0xF4 && in(at(1), 0x80, 0x8F) && in(at(2), 0x80, 0xBF) && in(at(3), 0x80, 0xBF)) n = 4;
    if (n == 0 || i + n > text.size()) return false;
    i += n;
  }
  return true;
}

void check_text(const std::string& text) {
  GPUWATCH_FUZZ_CHECK(is_valid_utf8(text), "a decoded part is valid UTF-8");
  GPUWATCH_FUZZ_CHECK(text.find('\0') == std::string::npos, "a decoded part has no NUL");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view raw = fuzz::as_text(data, size);
  GPUWATCH_FUZZ_CHECK(is_valid_utf8(raw) == well_formed_utf8(raw), "is_valid_utf8 agrees with Unicode's table");
  for (bool plus_is_space : {false, true}) {
    auto decoded = percent_decode(raw, plus_is_space);
    if (decoded) GPUWATCH_FUZZ_CHECK(decoded->size() <= raw.size(), "decoding never grows the text");
  }

  auto target = parse_request_target(raw);
  if (!target) {
    const auto answer = refusal_answer(Refusal::BadTarget, ServerLimits{}, target.error().message);
    GPUWATCH_FUZZ_CHECK(answer.status == 400, "a bad target is a 400");
    GPUWATCH_FUZZ_CHECK(fuzz::one_printable_line(answer.message), "the 400's reason is one printable line");
    GPUWATCH_FUZZ_CHECK(answer.message.size() <= 256, "the 400's reason stays short");
    return 0;
  }
  GPUWATCH_FUZZ_CHECK(!target->path.empty() && target->path.front() == '/', "a path starts with '/'");
  check_text(target->path);
  HttpRequest request;
  request.method = "GET";
  request.path = target->path;
  request.query = target->query;
  request.headers = {{"Host", "127.0.0.1"}};
  for (const auto& [name, value] : target->query) {
    check_text(name);
    check_text(value);
  }
  if (!target->query.empty()) {
    const auto& [first_name, first_value] = target->query.front();
    GPUWATCH_FUZZ_CHECK(request.param(first_name) == first_value, "param() finds the first value");
  }
  GPUWATCH_FUZZ_CHECK(request.header("host") == "127.0.0.1", "header() is case-insensitive");
  return 0;
}
