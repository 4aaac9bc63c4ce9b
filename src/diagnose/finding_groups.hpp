#pragma once
// Problems, not samples (issue 23): findings of one kind on one set of GPUs (and one job, when
// known) that came and went over a range are one finding, with its episodes, its share of the
// range and its worst episode. Pure.
//
//   grouping key: kind, the GPUs (as a set), the job id when set. Not the PID: a leak that
//     restarts with a new PID on the same GPU is the same problem (the worst episode's PID is kept).
//   severity worst; start the first start; end the last end; active when any episode is;
//   evidence, impact, pid and advice from the worst episode (severity, then impact, then its peak);
//   episodes by start; share = the union of the episodes' time over the range's length.
//   A group of one episode keeps its finding's words (episodes holds that one, share set); a
//   group of several says how many, what share, and how it evolved:
//     "thermal throttling in 288 episodes covering 53 % of the day, every ~5 min since 17:24, up to 93 °C"
#include <chrono>
#include <span>
#include <string>
#include <vector>

#include "diagnose/finding.hpp"

namespace gpuwatch::diagnose {

struct TimeRange {
  std::chrono::system_clock::time_point start, end;  // the diagnosed samples' span
};

struct GroupOptions {
  bool utc = false;  // times in words ("since 17:24") in UTC, else in the local time zone
};

// FINDINGS (ungrouped, or grouped already: their episodes are regrouped) over RANGE as one
// finding per problem, in finding_before order.
std::vector<Finding> group_findings(std::span<const Finding> findings, TimeRange range, const GroupOptions& options = {});

// How a grouped finding evolved, without its kind: "in 288 episodes covering 53 % of the day,
// every ~5 min since 17:24, getting worse" ("" for a single episode). WITH_SHARE false leaves
// the share out (the report gives the store's own share beside it).
std::string evolution_text(const Finding& grouped, TimeRange range, const GroupOptions& options = {},
                           bool with_share = true);

// One line per episode of FINDING, for `diagnose --episodes`:
//   "17:24:10 – 17:26:50 (2m 40s)  critical  impact 11 %  up to 91 °C"
std::vector<std::string> episode_lines(const Finding& finding, const GroupOptions& options = {});

// "every ~5 min" when the episodes' starts recur at a regular interval (3 episodes or more), else "".
std::string recurrence_text(std::span<const Episode> episodes);
// "getting worse" / "easing" when the last third's impact (or peak) differs clearly from the
// first third's (6 episodes or more), else "".
std::string trend_text(std::span<const Episode> episodes);

}  // namespace gpuwatch::diagnose
