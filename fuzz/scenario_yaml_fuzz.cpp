// libFuzzer target: scenario YAML (sim/engine/scenario_parser.cpp), parsed from the input bytes
// as `--simulate FILE` and `sim run FILE` would parse the file's text.
// Promises checked beyond "no crash": every error names the source and stays short (a 200 KB
// value is never echoed whole, issue 16), and an accepted scenario holds finite times.
#include <cmath>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_check.hpp"
#include "sim/engine/scenario_loader.hpp"

namespace {

// Relative replay files resolve here: nothing, so a fuzzed `file: x` never reads the
// working directory.
constexpr const char* kNoBaseDir = "/nonexistent/gpuwatch-fuzz";

bool finite_non_negative(double v) { return std::isfinite(v) && v >= 0; }

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ::unsetenv("GPUWATCH_REALDATA_DIR");  // "realdata/..." replay paths stay unresolved
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuwatch;
  auto scenario = sim::parse_scenario(fuzz::as_text(data, size), "fuzz.yaml", kNoBaseDir);
  if (!scenario) {
    const std::string& message = scenario.error().message;
    GPUWATCH_FUZZ_CHECK(message.rfind("fuzz.yaml", 0) == 0, "an error names the source first");
    GPUWATCH_FUZZ_CHECK(message.size() <= 2048, "an error message stays short");
    return 0;
  }
  GPUWATCH_FUZZ_CHECK(std::isfinite(scenario->time_scale) && scenario->time_scale > 0, "time_scale is positive");
  for (const auto& gpu : scenario->gpus) {
    GPUWATCH_FUZZ_CHECK(std::isfinite(gpu.noise), "noise is finite");
    for (const auto& phase : gpu.phases) {
      GPUWATCH_FUZZ_CHECK(finite_non_negative(phase.duration_s), "a phase lasts a finite time");
      for (const auto& row : phase.rows) GPUWATCH_FUZZ_CHECK(finite_non_negative(row.t_s), "a replay row's time is finite");
    }
    for (const auto& event : gpu.events) GPUWATCH_FUZZ_CHECK(finite_non_negative(event.at_s), "an event's time is finite");
    for (const auto& process : gpu.processes)
      GPUWATCH_FUZZ_CHECK(finite_non_negative(process.memory_mib), "a process's memory is finite");
  }
  for (const auto& fault : scenario->faults) {
    GPUWATCH_FUZZ_CHECK(finite_non_negative(fault.from_s), "a fault starts at a finite time");
    GPUWATCH_FUZZ_CHECK(fault.gpu >= -1 && fault.gpu < static_cast<int>(scenario->gpus.size()), "a fault's GPU exists");
    GPUWATCH_FUZZ_CHECK(finite_non_negative(fault.delay_ms) && finite_non_negative(fault.hang_s), "fault delays are finite");
  }
  return 0;
}
