#include "cli/open_nvml.hpp"

#include <fmt/core.h>

namespace gpuwatch::cli {

std::unique_ptr<nvml::NvmlLibrary> open_nvml_for_command(const GlobalOptions& global) {
  auto library = nvml::NvmlLibrary::open(global.nvml_library);
  if (!library) {
    fmt::print(stderr, "gpuwatch: {}\n", library.error().message);
    if (global.simulate.empty()) {
      fmt::print(stderr, "No NVIDIA GPU here? Try gpuwatch on the simulated 8-GPU demo node: gpuwatch --simulate demo {}\n",
                 global.command);
    }
    return nullptr;
  }
  return std::move(*library);
}

}  // namespace gpuwatch::cli
