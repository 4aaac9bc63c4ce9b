// libFuzzer target: durations and times, every grammar a user types one in:
//  - core::parse_duration: every interval/duration flag ("500ms", "2.5", "1h");
//  - cli::read_duration_flag: the same, within a flag's bounds, with the flag named in errors;
//  - core::parse_time_spec / parse_time_range: --since/--until ("2h", "@1700000000", ISO dates);
//  - alerts::parse_duration: Prometheus durations in rules files ("1h30m").
// The whole input is the text; for a time range its first line is --since, the rest --until.
// Promises checked beyond "no crash": accepted values lie in their documented ranges; errors
// name the value cut short, never a 400-digit number whole (issue 16); a time printed by
// format_iso8601 reads back as the same time; a rules duration printed by format_duration
// reads back as the same duration.
#include <chrono>
#include <string>

#include "alerts/duration.hpp"
#include "cli/duration_option.hpp"
#include "core/time_spec.hpp"
#include "fuzz/fuzz_check.hpp"

namespace {

using namespace gpuwatch;
using std::chrono::milliseconds;

const auto kNow = std::chrono::system_clock::time_point(std::chrono::seconds(1'796'040'000));  // 2026-11-30
constexpr std::int64_t kLastMs = 253'402'300'799'999;       // 9999-12-31T23:59:59.999Z
constexpr std::int64_t kFirstMs = -62'167'219'200'000;      // 0000-01-01T00:00Z
constexpr std::int64_t kZoneSlackMs = 5 * 86'400'000;      // a zone offset of up to +-99:99
constexpr std::int64_t kLastClockMs = 9'223'372'036'854;   // 2262-04-11, system_clock's last
constexpr std::size_t kShortMessage = 512;

void check_durations(const std::string& text) {
  auto duration = core::parse_duration(text);
  if (duration) {
    GPUWATCH_FUZZ_CHECK(duration->count() >= 1 && duration->count() <= 320'000'000'000, "1ms .. 10 years");
  } else {
    GPUWATCH_FUZZ_CHECK(duration.error().message.size() <= kShortMessage, "a duration error stays short");
  }

  const cli::DurationBounds bounds;
  auto flag = cli::read_duration_flag("-i/--interval", text, bounds);
  if (flag) {
    GPUWATCH_FUZZ_CHECK(*flag >= bounds.min && *flag <= bounds.max, "a flag's value within its bounds");
    GPUWATCH_FUZZ_CHECK(duration && *duration == *flag, "the flag reads the one duration grammar");
  } else {
    GPUWATCH_FUZZ_CHECK(flag.error().message.rfind("-i/--interval: ", 0) == 0, "a flag error names the flag");
    GPUWATCH_FUZZ_CHECK(flag.error().message.size() <= kShortMessage, "a flag error stays short");
  }

  auto rules = alerts::parse_duration(text);
  if (rules) {
    GPUWATCH_FUZZ_CHECK(rules->count() >= 0, "a rules duration is not negative");
    GPUWATCH_FUZZ_CHECK(alerts::parse_duration(alerts::format_duration(*rules)) == rules,
                        "a formatted rules duration reads back");
  }
}

void check_time(const std::string& text) {
  auto t = core::parse_time_spec(text, kNow);
  if (!t) {
    GPUWATCH_FUZZ_CHECK(t.error().message.size() <= kShortMessage, "a time error stays short");
    return;
  }
  GPUWATCH_FUZZ_CHECK(*t >= kFirstMs - kZoneSlackMs && *t <= kLastMs + kZoneSlackMs, "a time between the years 0 and 9999");
  // system_clock counts nanoseconds in int64: time points end in 2262.
  if (*t >= 0 && *t <= kLastClockMs) {
    const auto point = std::chrono::system_clock::time_point(milliseconds(*t));
    const std::string printed = core::format_iso8601(point);
    auto again = core::parse_time_spec(printed, kNow);
    GPUWATCH_FUZZ_CHECK(again && *again == *t, "format_iso8601 reads back as the same time");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(fuzz::as_text(data, size));
  check_durations(text);
  check_time(text);
  const auto newline = text.find('\n');
  const std::string since = text.substr(0, newline);
  const std::string until = newline == std::string::npos ? "" : text.substr(newline + 1);
  auto range = core::parse_time_range(since, until, kNow);
  if (!range) {
    const auto& message = range.error().message;
    GPUWATCH_FUZZ_CHECK(message.rfind("--since: ", 0) == 0 || message.rfind("--until: ", 0) == 0,
                        "a range error names the option");
  }
  return 0;
}
