#pragma once
// A command that gave up on a hung NVML call (sampler::DeadlineSampler, record's collector)
// ends here: with a thread still inside NVML, exit() would run destructors (and NVML's
// own) under it, so the process flushes its output and leaves with std::_Exit instead.
namespace gpuwatch::cli {

// CODE when no NVML call is abandoned; otherwise flushes stdout/stderr and _Exit(CODE).
int exit_past_hung_nvml(int code);

}  // namespace gpuwatch::cli
