// libFuzzer target: the query of /api/v1/history and /api/v1/events as `serve` reads it: the
// request target split and percent-decoded (exporter/http/request_target.cpp), then ?seconds=
// and ?gpu= parsed and bounded (exporter/history_request.cpp), on a node of 8 GPUs.
// Promises checked beyond "no crash": an accepted window is finite, positive and at most
// kMaxHistorySeconds (ten years: the store's millisecond arithmetic and point cap hold);
// an accepted GPU exists; a refusal names the parameter, is one printable line when the value
// was, and quotes at most kQuotedValueBytes of the value (a long value is never echoed whole).
#include <cmath>
#include <string>

#include "exporter/history_request.hpp"
#include "exporter/http/message.hpp"
#include "exporter/http/request_target.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using namespace gpuwatch;
using namespace gpuwatch::exporter;

constexpr unsigned kGpus = 8;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string raw = "/api/v1/history?" + std::string(fuzz::as_text(data, size));
  auto target = http::parse_request_target(raw);
  if (!target) return 0;  // request_target_fuzz covers refused targets
  http::HttpRequest request;
  request.path = target->path;
  request.query = target->query;
  const std::string_view seconds = request.param("seconds");
  const std::string_view gpu = request.param("gpu");

  auto parsed = parse_history_request(seconds, gpu, kGpus);
  if (!parsed) {
    const std::string& message = parsed.error().message;
    GPUWATCH_FUZZ_CHECK(message.rfind("seconds ", 0) == 0 || message.rfind("gpu ", 0) == 0 ||
                            message.rfind("no GPU ", 0) == 0,
                        "a refusal names the parameter");
    GPUWATCH_FUZZ_CHECK(message.size() <= 160 + kQuotedValueBytes, "a refusal quotes at most the start of a value");
    if (fuzz::one_printable_line(seconds) && fuzz::one_printable_line(gpu))
      GPUWATCH_FUZZ_CHECK(fuzz::one_printable_line(message), "a refusal of printable values is one printable line");
    return 0;
  }
  GPUWATCH_FUZZ_CHECK(parsed->seconds.has_value() == !seconds.empty(), "seconds= given <=> a window");
  if (parsed->seconds) {
    const double s = *parsed->seconds;
    GPUWATCH_FUZZ_CHECK(std::isfinite(s) && s > 0 && s <= kMaxHistorySeconds, "an accepted window is bounded");
  }
  GPUWATCH_FUZZ_CHECK(parsed->gpu.has_value() == !gpu.empty(), "gpu= given <=> one GPU");
  if (parsed->gpu) GPUWATCH_FUZZ_CHECK(*parsed->gpu < kGpus, "an accepted GPU exists");
  return 0;
}
