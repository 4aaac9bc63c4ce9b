#include "exporter/recorded_findings.hpp"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <string>

#include "core/json_text.hpp"
#include "core/time_spec.hpp"
#include "diagnose/finding_json.hpp"
#include "diagnose/problem_order.hpp"

namespace gpuwatch::exporter {
namespace {

// 'VALUE', cut at 40 bytes.
std::string quoted_findings_value(std::string_view value) {
  if (value.size() <= 40) return "'" + std::string(value) + "'";
  return "'" + std::string(value.substr(0, 40)) + "...'";
}

nlohmann::json seconds_or_null(std::optional<std::int64_t> ms) {
  if (!ms) return nullptr;
  return static_cast<double>(*ms) / 1000.0;
}

}  // namespace

core::Result<FindingsRange> parse_findings_range(std::string_view seconds, std::string_view since,
                                                 std::string_view until, std::chrono::system_clock::time_point now) {
  const std::int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  FindingsRange range;
  if (!seconds.empty()) {
    if (!since.empty() || !until.empty()) return core::make_error("give either seconds or since/until, not both");
    double v = 0;
    auto [end, ec] = std::from_chars(seconds.data(), seconds.data() + seconds.size(), v);
    if (ec != std::errc() || end != seconds.data() + seconds.size() || !std::isfinite(v) || v <= 0)
      return core::make_error("seconds must be a positive number, got " + quoted_findings_value(seconds));
    if (v * 1000.0 > static_cast<double>(kMaxFindingsRangeMs))
      return core::make_error("the range is at most 31 days (2678400 seconds), got seconds=" + quoted_findings_value(seconds));
    range.until_ms = now_ms;
    range.since_ms = now_ms - static_cast<std::int64_t>(std::llround(v * 1000.0));
    return range;
  }
  range.until_ms = now_ms;
  if (!until.empty()) {
    auto parsed = core::parse_time_spec(std::string(until), now);
    if (!parsed) return core::make_error("until: " + parsed.error().message);
    range.until_ms = *parsed;
  }
  range.since_ms = range.until_ms - kDefaultFindingsRangeMs;
  if (!since.empty()) {
    auto parsed = core::parse_time_spec(std::string(since), now);
    if (!parsed) return core::make_error("since: " + parsed.error().message);
    range.since_ms = *parsed;
  }
  if (range.since_ms > range.until_ms) return core::make_error("since must be before until");
  if (range.until_ms - range.since_ms > kMaxFindingsRangeMs)
    return core::make_error("the range is at most 31 days: ask for a shorter since/until");
  return range;
}

std::string recorded_findings_json(const RecordedFindings& recorded, const FindingsRange& range) {
  nlohmann::json out = diagnose::findings_json(recorded.findings);
  out["summary"] = diagnose::problem_sentences(recorded.findings);  // most urgent first, as `diagnose`
  out["samples"] = recorded.samples;
  out["range"] = {{"since_s", static_cast<double>(range.since_ms) / 1000.0},
                  {"until_s", static_cast<double>(range.until_ms) / 1000.0},
                  {"first_sample_s", seconds_or_null(recorded.first_ms)},
                  {"last_sample_s", seconds_or_null(recorded.last_ms)}};
  return core::json_text(out);
}

}  // namespace gpuwatch::exporter
