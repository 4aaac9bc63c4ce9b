#pragma once
#include <chrono>
// The words every human-facing channel shares (Slack, Discord, Teams, ntfy, email, desktop):
// a title for the group and one line per alert. Pure functions.
//
// Output encoding (issue 31): every text an alert carries (rule name, host, label values,
// annotations: templates may quote a process's command) is encoded for SINK, the channel's
// markup (core/sink_text.hpp): Slack mrkdwn, Markdown (Discord, Teams), one plain line (ntfy,
// e-mail, desktop). Only gpuwatch's own words pass as they are, and the pieces of an annotation
// whose rule opted into raw text with `| raw` (alerts::TextSpan).
#include <string>

#include "alerts/alert.hpp"
#include "core/sink_text.hpp"
#include "notify/group.hpp"

namespace gpuwatch::notify {

// "[FIRING:2] GpuTemperatureHigh, GpuHungJob on node-1"; "[RESOLVED] GpuTemperatureHigh on node-1";
// "[FIRING:1, RESOLVED:1] ..." when both.
std::string group_title(const Group& group, core::TextSink sink);

// "GPU 3" / "node" (a node alert).
std::string alert_target(const alerts::Alert& alert);

// The alert's summary annotation, else its description, else its name.
std::string alert_summary(const alerts::Alert& alert, core::TextSink sink);

// The annotation NAME of ALERT for SINK ("" when absent): encoded whole, or, when its rule used
// `| raw`, its raw pieces as written and the others encoded (a raw piece still never breaks a
// plain line: PlainLine encodes everything).
std::string annotation_text(const alerts::Alert& alert, const std::string& name, core::TextSink sink);

// "critical GpuTemperatureHigh on GPU 3: GPU 3 is at 91 °C (since 2026-11-30T09:10:00Z)" and
// "resolved GpuTemperatureHigh on GPU 3 (after 6m 10s)".
std::string event_line(const alerts::AlertEvent& event, core::TextSink sink);

// Every event's line, one a line; at most MAX_LINES, then "... and N more".
std::string event_lines(const Group& group, core::TextSink sink, std::size_t max_lines = 20, const std::string& bullet = "");

// RFC 3339 in UTC with milliseconds: "2026-11-30T09:14:27.123Z" (Alertmanager's form).
std::string rfc3339(alerts::TimePoint t);
// RFC 5322 date in UTC: "Mon, 30 Nov 2026 09:14:27 +0000".
std::string rfc5322_date(alerts::TimePoint t);
// "6m 10s", "2h 3m", "45s".
std::string human_duration(std::chrono::seconds span);

// TEXT cut to at most MAX_BYTES (on a UTF-8 boundary), ending in "…" when cut.
std::string truncate_utf8(const std::string& text, std::size_t max_bytes);

}  // namespace gpuwatch::notify
