#pragma once
// The Level Zero loader (Debian's libze1: libze_loader.so.1), loaded at run time like NVML and
// never linked: the one place gpuwatch dlopens it. Resolves the SysmanFunctions table; zeInit and
// the rest are sysman_reader's. The loader stays loaded for the life of the process (its drivers
// may keep threads; unloading it buys nothing).
#include <memory>
#include <string>

#include "core/result.hpp"
#include "intel/sysman_functions.hpp"

namespace gpuwatch::intel {

inline constexpr const char* kLevelZeroDefaultLibrary = "libze_loader.so.1";

class LevelZeroLibrary {
 public:
  // PATH: empty = kLevelZeroDefaultLibrary from the dynamic loader's path. Sets
  // ZES_ENABLE_SYSMAN=1 unless it is set already (Sysman on the core handles needs it before
  // zeInit). Error: dlopen's message, or a loader without zeInit.
  static core::Result<std::unique_ptr<LevelZeroLibrary>> open(const std::string& path);

  const SysmanFunctions& functions() const { return functions_; }
  const std::string& path() const { return path_; }

 private:
  LevelZeroLibrary(std::string path, SysmanFunctions functions) : path_(std::move(path)), functions_(functions) {}
  std::string path_;
  SysmanFunctions functions_;
};

}  // namespace gpuwatch::intel
