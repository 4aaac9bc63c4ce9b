#pragma once
// The steps file: what the Python package's Monitor writes from inside the job (one JSON object
// per line per training step) and `gpuwatch run` reads when the job ends. The contract:
//   {"step": int, "time": unix seconds, "data_wait_s": float, "compute_s": float, "loss": float|null,
//    optional "allocated_bytes", "reserved_bytes", "num_alloc_retries", "num_ooms", "samples" (the
//    step's batch size, for J/sample: Monitor.step(i, loss, samples=64))}
// A line that is not such an object is skipped and counted, never fatal.
#include <chrono>
#include <cstdint>
#include <utility>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.hpp"
#include "diagnose/finding.hpp"

namespace gpuwatch::jobs {

struct StepRow {
  std::int64_t step = 0;
  double time_s = 0;  // Unix seconds
  double data_wait_s = 0;
  double compute_s = 0;
  std::optional<double> loss;
  std::optional<std::int64_t> allocated_bytes, reserved_bytes, num_alloc_retries, num_ooms;
  std::optional<std::int64_t> samples;  // samples (batch size) in the step, when given
};

struct StepsFile {
  std::vector<StepRow> rows;
  std::size_t malformed = 0;  // lines skipped
};

// The lines of TEXT (the last one may lack its newline; blank lines are ignored).
StepsFile parse_steps(std::string_view text);

// Reads PATH: a regular file of at most MAX_BYTES (the steps file a job wrote). An absent file is
// no error (the job wrote no steps): empty. Error for a directory, a FIFO, a device or a bigger file.
inline constexpr std::uint64_t kMaxStepsFileBytes = 256ull * 1024 * 1024;
core::Result<StepsFile> read_steps_file(const std::string& path, std::uint64_t max_bytes = kMaxStepsFileBytes);

// The measured data-wait share: sum(data_wait_s) / sum(data_wait_s + compute_s); nullopt without
// steps or when both sums are 0.
std::optional<double> data_wait_share(const std::vector<StepRow>& rows);

// From the first step's start (time - data_wait_s - compute_s) to the last step's end; nullopt without steps.
std::optional<std::pair<std::chrono::system_clock::time_point, std::chrono::system_clock::time_point>> steps_time_range(
    const std::vector<StepRow>& rows);

// The input_starved finding measured from inside the job, when SHARE reaches the diagnose
// engine's input_starved levels (thresholds::kStarvedInfoShare info, kStarvedWarnShare warning);
// GPUS: the job's GPUs. nullopt below them.
std::optional<diagnose::Finding> measured_starvation(double share, std::size_t steps, const std::vector<unsigned>& gpus,
                                                     const std::vector<std::string>& uuids);

}  // namespace gpuwatch::jobs
