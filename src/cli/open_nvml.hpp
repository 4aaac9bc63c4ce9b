#pragma once
#include <memory>

#include "cli/global_options.hpp"
#include "nvml/nvml_library.hpp"

namespace gpuwatch::cli {

// Opens NVML as GlobalOptions says. On failure prints the loader's message (what is
// missing, what to check) on stderr and returns nullptr: exit with kExitNvmlUnavailable.
std::unique_ptr<nvml::NvmlLibrary> open_nvml_for_command(const GlobalOptions& global);

}  // namespace gpuwatch::cli
