#pragma once
// The real NVML: dlopen of libnvidia-ml.so.1 (or a given path), symbol resolution,
// nvmlInit. Keeps the library loaded and initialised until destroyed (then
// nvmlShutdown + dlclose).
#include <memory>
#include <optional>
#include <string>

#include "core/result.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuwatch::nvml {

// Error codes of NvmlLibrary::open (core::Error::code).
enum LoadErrorCode : int {
  kLoadLibraryNotFound = 1,     // dlopen failed: no driver / wrong path / container without --gpus
  kLoadSymbolMissing = 2,       // a required symbol is missing (not an NVML library?)
  kLoadInitFailed = 3,          // nvmlInit failed (driver not loaded, no permission...)
};

inline constexpr const char* kDefaultLibraryName = "libnvidia-ml.so.1";

class NvmlLibrary {
 public:
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const NvmlApi& api() const { return api_; }

  // The simulated driver's clock control (gpuwatchSimSetClock: Unix ms every call reads from
  // then on, 0 for the real clock), or nullptr: this library is not gpuwatch's simulator.
  using SimClockSetter = int (*)(long long unix_ms);
  SimClockSetter sim_clock_setter() const;
  // The simulated driver's scenario time_scale (scenario seconds per wall second), or nullopt: this
  // library is not gpuwatch's simulator (a real driver runs at 1).
  std::optional<double> sim_time_scale() const;
  const std::string& path() const { return path_; }

  // path: empty = kDefaultLibraryName through the dynamic loader's search path.
  // The error message says what is missing and what to check.
  static core::Result<std::unique_ptr<NvmlLibrary>> open(const std::string& path);

 private:
  NvmlLibrary(void* handle, std::string path, NvmlFunctions fns);
  void* handle_;
  std::string path_;
  NvmlApi api_;
};

}  // namespace gpuwatch::nvml
