#pragma once
// `gpuwatch status` as text: one header line (host, time, driver), then per GPU one
// line (index, name, temperature, utilization, memory, power) followed by one line
// per process (PID, user, GPU memory, command). Pure: same input, same string.
// Absent values print "N/A"; a lost GPU prints its error on its own row.
#include <string>

#include "cli/status_view.hpp"
#include "cli/terminal_style.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::cli {

std::string render_status_text(const core::Snapshot& snapshot, const StatusContext& context, const Style& style);

}  // namespace gpuwatch::cli
