#include "exporter/jobs_api.hpp"

#include <charconv>

#include "exporter/history_request.hpp"  // kQuotedValueBytes
#include "history/jobs_render.hpp"

namespace gpuwatch::exporter {

core::Result<std::size_t> parse_jobs_limit(std::string_view limit) {
  if (limit.empty()) return kDefaultJobsLimit;
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(limit.data(), limit.data() + limit.size(), n);
  const std::string shown = limit.size() <= kQuotedValueBytes ? std::string(limit) : std::string(limit.substr(0, kQuotedValueBytes)) + "...";
  if (ec != std::errc() || end != limit.data() + limit.size() || n == 0)
    return core::make_error("limit must be a whole number from 1 to " + std::to_string(kMaxJobsLimit) + ", got '" + shown + "'");
  if (n > kMaxJobsLimit)
    return core::make_error("limit must be at most " + std::to_string(kMaxJobsLimit) + ", got '" + shown + "'");
  return n;
}

std::string jobs_api_json(const std::vector<store::JobRow>& jobs, std::size_t limit,
                          std::chrono::system_clock::time_point now) {
  // render_jobs's JSON is one array (valid UTF-8: it replaces invalid bytes) ending with a newline.
  std::string array = history::render_jobs(jobs, history::JobsFormat::Json, now);
  while (!array.empty() && (array.back() == '\n' || array.back() == ' ')) array.pop_back();
  return "{\"jobs\":" + array + ",\"limit\":" + std::to_string(limit) + ",\"recording\":true}";
}

std::string jobs_unrecorded_json(std::size_t limit) {
  return "{\"jobs\":null,\"limit\":" + std::to_string(limit) +
         ",\"recording\":false,\"reason\":\"no history database (serve --no-record): jobs need one\"}";
}

}  // namespace gpuwatch::exporter
