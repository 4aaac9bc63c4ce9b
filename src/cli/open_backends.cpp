#include "cli/open_backends.hpp"

#include <fmt/core.h>

#include "vendors/vendor_table.hpp"

namespace gpuwatch::cli {

std::unique_ptr<backend::Backends> open_backends_for_command(const GlobalOptions& global) {
  auto backends = vendors::open_backends(backend::OpenOptions{global.nvml_library});
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
