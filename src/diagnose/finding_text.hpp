#pragma once
// Findings as a person reads them in a terminal: worst first, one headline per finding with
// its GPUs, then what it costs, the numbers behind it and what to try. Plain text; the caller
// colours the severity word (terminal::Style) when it writes to a terminal.
#include <functional>
#include <span>
#include <string>

#include "diagnose/finding.hpp"

namespace gpuwatch::diagnose {

// PAINT_SEVERITY gets the severity's word ("CRITICAL", "WARNING", "INFO") and may colour it.
// WITH_EPISODES: a grouped finding's episodes one per line under it (`diagnose --episodes`);
// else a finding of several episodes says how many and how to list them.
std::string findings_text(std::span<const Finding> findings,
                          const std::function<std::string(Severity, const std::string&)>& paint_severity = {},
                          bool with_episodes = false);

// FINDINGS ordered worst first, then by GPU, then by start.
std::vector<Finding> worst_first(std::span<const Finding> findings);

}  // namespace gpuwatch::diagnose
