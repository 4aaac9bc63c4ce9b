#pragma once
// GET /api/v1/findings (issue 23): the grouped findings of a recorded range, as `gpuwatch
// diagnose --json` gives them. The seam between the route and serve's database (serve wires
// in recorder/store_findings.hpp; the exporter never includes store code), the range's
// query parameters, parsed and bounded, and the answer's JSON. Pure but for the reader.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "diagnose/finding.hpp"

namespace gpuwatch::exporter {

// The longest range /api/v1/findings diagnoses (a 400 beyond): a month of samples at 1 s is
// what a request may make serve replay.
inline constexpr std::int64_t kMaxFindingsRangeMs = std::int64_t{31} * 86400 * 1000;
// Without ?seconds= or ?since=: the last hour.
inline constexpr std::int64_t kDefaultFindingsRangeMs = std::int64_t{3600} * 1000;

struct FindingsRange {
  std::int64_t since_ms = 0, until_ms = 0;  // Unix ms, inclusive
};

// ?seconds=N (the last N seconds, as /api/v1/history), or ?since=&until= in the CLI's time
// grammar (core/time_spec.hpp: "2h", "@1700000000", "2026-11-29T14:00Z"; until defaults to
// now, since to an hour before until). Empty strings: absent. Errors name the parameter.
core::Result<FindingsRange> parse_findings_range(std::string_view seconds, std::string_view since,
                                                 std::string_view until, std::chrono::system_clock::time_point now);

struct RecordedFindings {
  std::vector<diagnose::Finding> findings;  // grouped: one per problem, with episodes and share
  std::size_t samples = 0;                  // snapshots read (0: nothing recorded in the range)
  std::optional<std::int64_t> first_ms, last_ms;
};

// Error codes of a reader: kFindingsBusy (busy, too slow, stopping: try again or ask less),
// anything else a failure to read.
inline constexpr int kFindingsBusy = 503;
using RecordedFindingsReader = std::function<core::Result<RecordedFindings>(const FindingsRange&)>;

// {"findings": [...], "summary": [one sentence per problem, most urgent first], "samples": N,
//  "range": {"since_s", "until_s", "first_sample_s", "last_sample_s"}} (docs/api.md).
std::string recorded_findings_json(const RecordedFindings& recorded, const FindingsRange& range);

}  // namespace gpuwatch::exporter
