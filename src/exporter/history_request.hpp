#pragma once
// The query parameters of /api/v1/history and /api/v1/events (?seconds=, ?gpu=), parsed and
// bounded (issue 16). Pure: fuzzed by fuzz/history_request_fuzz.cpp.
#include <optional>
#include <string_view>

#include "core/result.hpp"

namespace gpuwatch::exporter {

struct HistoryRequest {
  std::optional<double> seconds;  // nullopt: everything held
  std::optional<unsigned> gpu;    // nullopt: every GPU
};
// The longest window /api/v1/history?seconds= accepts (a 400 beyond it; issue 16).
inline constexpr double kMaxHistorySeconds = 10.0 * 365 * 86400;
// At most this many bytes of a refused value are quoted back in the error.
inline constexpr std::size_t kQuotedValueBytes = 40;

// Parses the query parameters ("" when absent). GPU_COUNT bounds gpu=. Errors name the
// parameter and quote (the start of) the value.
core::Result<HistoryRequest> parse_history_request(std::string_view seconds, std::string_view gpu,
                                                   unsigned gpu_count);

}  // namespace gpuwatch::exporter
