#pragma once
// Pressure stall information, /proc/pressure/{cpu,memory,io} (Documentation/accounting/psi.rst):
// the share of wall time in which some (or all: full) runnable tasks were stalled on the
// resource, as percentages averaged over 10, 60 and 300 s, and the total stall time in µs.
// Kernels before 4.20, or booted with psi=0, have no such files: absent, never 0. The cpu file
// of kernels before 5.13 has no "full" line.
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuwatch::host_signals {

struct PressureLine {
  double avg10_percent = 0, avg60_percent = 0, avg300_percent = 0;
  std::uint64_t total_us = 0;
};

struct Pressure {
  std::optional<PressureLine> some, full;
};

Pressure parse_pressure(std::string_view text);

}  // namespace gpuwatch::host_signals
