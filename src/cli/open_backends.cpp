#include "cli/open_backends.hpp"

#include <fmt/core.h>

#include <cstdlib>

#include "doctor/system_view.hpp"
#include "sim_session/simulated_vendor_tree.hpp"
#include "vendors/vendor_table.hpp"

namespace gpuwatch::cli {

backend::OpenOptions open_options(const GlobalOptions& global) {
  backend::OpenOptions options;
  options.nvidia_library = global.nvml_library;
  options.host_root = doctor::host_root_from_environment();
  if (const char* ze = std::getenv("GPUWATCH_ZE_LIBRARY")) options.level_zero_library = ze;
  options.simulated_tree = sim_session::simulated_vendor_tree_from_environment();
  return options;
}

std::unique_ptr<backend::Backends> open_backends_for_command(const GlobalOptions& global) {
  return open_backends_for_command(global, open_options(global));
}

std::unique_ptr<backend::Backends> open_backends_for_command(const GlobalOptions& global, const backend::OpenOptions& options) {
  auto backends = vendors::open_backends(options);
  if (backends->empty()) {
    fmt::print(stderr, "gpuwatch: {}\n", backends->failure_text());
    if (global.simulate.empty()) {
      fmt::print(stderr, "No NVIDIA GPU here? Try gpuwatch on the simulated 8-GPU demo node: gpuwatch --simulate demo {}\n",
                 global.command);
    }
    return nullptr;
  }
  return backends;
}

}  // namespace gpuwatch::cli
