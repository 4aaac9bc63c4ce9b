#pragma once
// The commands' exit codes (defined in core/, where background code that ends a command uses them too).
#include "core/exit_codes.hpp"

namespace gpuwatch::cli {
using core::ExitCode;
using core::kExitOk;
using core::kExitRuntimeError;
using core::kExitUsage;
using core::kExitNvmlUnavailable;
using core::kExitNoDevices;
using core::kExitPartial;
}  // namespace gpuwatch::cli
