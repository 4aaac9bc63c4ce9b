#pragma once
// What a scenario may hold (issue 16), shared by the YAML parser and `sim import` so that the
// importer never writes a scenario that then fails to load: values finite and within what
// their NVML unit holds, a bounded number of processes, long texts cut in messages.
#include <cstddef>
#include <string>
#include <string_view>

#include "sim/engine/query_keys.hpp"

namespace gpuwatch::sim {

// Every process of a scenario is a stand-in process when it runs (`sim run`, --simulate):
// at most this many in one scenario (docs/simulator.md, docs/security.md).
inline constexpr std::size_t kMaxScenarioProcesses = 256;

// "" when VALUE (display units) fits KEY; else what is wrong ("out of range: give at most
// 4294967.295 (watts, served in uint32 milliwatts)", "not a finite number").
std::string value_range_problem(Key key, double value);

// TEXT cut to 200 characters + "…" (a 200 KB command line is not echoed whole).
std::string clip_for_message(std::string_view text);

}  // namespace gpuwatch::sim
