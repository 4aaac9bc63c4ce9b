#include "cli/timeout_option.hpp"

#include <CLI/CLI.hpp>

#include "cli/duration_option.hpp"

namespace gpuwatch::cli {

void add_timeout_option(CLI::App& app, std::chrono::milliseconds& target) {
  add_duration_option(app, "--timeout", target,
                      "Answer within this time even when a GPU hangs: a GPU whose NVML call has not answered is "
                      "shown timed out ([Timeout] in CSV, \"timed_out\": true in JSON), the others as usual "
                      "[default: 2s]",
                      {.min = std::chrono::milliseconds(10), .max = std::chrono::hours(1), .hint = {}});
}

}  // namespace gpuwatch::cli
