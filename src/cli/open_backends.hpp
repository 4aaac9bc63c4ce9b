#pragma once
#include <memory>

#include "backend/backends.hpp"
#include "cli/global_options.hpp"

namespace gpuwatch::cli {

// What the backends are opened with: --nvml-library for NVIDIA's, the host root (GPUWATCH_HOST_ROOT
// or "/") for the vendors read from files, and on the simulator the simulated vendor tree.
backend::OpenOptions open_options(const GlobalOptions& global);

// Opens the backends as GlobalOptions says. When none opens, prints each one's message (what is
// missing, what to check) on stderr and returns nullptr: exit with kExitNvmlUnavailable.
std::unique_ptr<backend::Backends> open_backends_for_command(const GlobalOptions& global);
// The same with OPTIONS made by open_options(): a command that also reads the host (serve's
// host signals) shares their host root and simulated tree with the backends.
std::unique_ptr<backend::Backends> open_backends_for_command(const GlobalOptions& global, const backend::OpenOptions& options);

}  // namespace gpuwatch::cli
