#pragma once
// `gpuwatch status` as text: one header line (host, time, driver), then per GPU one
// line (index, name, temperature, utilization, memory, power) followed by one line
// per process (PID, user, GPU memory, command). Pure: same input, same string.
// Absent values print "N/A"; a lost GPU prints its error on its own row.
#include <string>

#include "status/view.hpp"
#include "terminal/style.hpp"
#include "core/snapshot.hpp"

namespace gpuwatch::status {

std::string render_status_text(const core::Snapshot& snapshot, const StatusContext& context, const terminal::Style& style);

}  // namespace gpuwatch::status
