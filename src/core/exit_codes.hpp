#pragma once
// Process exit codes, documented in docs/cli.md and each covered by an e2e test.
namespace gpuwatch::core {
enum ExitCode : int {
  kExitOk = 0,
  kExitRuntimeError = 1,    // something failed that is not one of the below
  kExitUsage = 2,           // bad command line or bad input file
  kExitNvmlUnavailable = 3, // libnvidia-ml could not be loaded or initialised
  kExitNoDevices = 4,       // NVML works but reports no GPU (or none matched -i)
  kExitPartial = 5,         // some GPUs or fields failed; the rest were printed
};
}  // namespace gpuwatch::core
