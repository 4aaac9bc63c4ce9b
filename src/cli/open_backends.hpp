#pragma once
#include <memory>

#include "backend/backends.hpp"
#include "cli/global_options.hpp"

namespace gpuwatch::cli {

// Opens the backends as GlobalOptions says (--nvml-library for NVIDIA's). When none opens,
// prints each one's message (what is missing, what to check) on stderr and returns nullptr:
// exit with kExitNvmlUnavailable.
std::unique_ptr<backend::Backends> open_backends_for_command(const GlobalOptions& global);

}  // namespace gpuwatch::cli
