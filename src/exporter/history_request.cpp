#include "exporter/history_request.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace gpuwatch::exporter {
namespace {

bool parse_double(std::string_view text, double& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && std::isfinite(out);
}

// 'VALUE', or its first kQuotedValueBytes bytes and "..." (the JSON writer replaces a cut
// UTF-8 sequence).
std::string quoted(std::string_view value) {
  if (value.size() <= kQuotedValueBytes) return "'" + std::string(value) + "'";
  return "'" + std::string(value.substr(0, kQuotedValueBytes)) + "...' (" + std::to_string(value.size()) + " bytes)";
}

}  // namespace

core::Result<HistoryRequest> parse_history_request(std::string_view seconds, std::string_view gpu,
                                                   unsigned gpu_count) {
  HistoryRequest request;
  if (!seconds.empty()) {
    double v = 0;
    if (!parse_double(seconds, v) || v <= 0)
      return core::make_error("seconds must be a positive number, got " + quoted(seconds));
    // Bounded (issue 16): a huge window overflowed the store's millisecond arithmetic and
    // skipped the point cap. Ten years is more than any history keeps.
    if (v > kMaxHistorySeconds)
      return core::make_error("seconds must be at most " + std::to_string(static_cast<long long>(kMaxHistorySeconds)) +
                              " (10 years), got " + quoted(seconds));
    request.seconds = v;
  }
  if (!gpu.empty()) {
    unsigned index = 0;
    auto [end, ec] = std::from_chars(gpu.data(), gpu.data() + gpu.size(), index);
    if (ec != std::errc() || end != gpu.data() + gpu.size())
      return core::make_error("gpu must be a GPU index, got " + quoted(gpu));
    if (index >= gpu_count)
      return core::make_error("no GPU " + std::to_string(index) + " (" + std::to_string(gpu_count) + " GPUs)");
    request.gpu = index;
  }
  return request;
}

}  // namespace gpuwatch::exporter
