#pragma once
// Optional modules: the parts of gpuwatch that need large libraries (gRPC and protobuf for the
// kubelet's pod-resources API, libcurl for notifications) are shared objects, loaded with dlopen
// the first time they are needed. A command that never asks a kubelet or sends a notification
// never maps those libraries (about 11 MiB of RSS: docs/performance.md).
// Where they are: GPUWATCH_MODULE_DIR if set, else <exe dir>/modules (build tree), else
// <exe dir>/../lib/gpuwatch/modules (installed).
#include <filesystem>
#include <string>
#include <vector>

#include "core/result.hpp"

// The entry points of a module, and its version (checked by the loader against its own).
#define GPUWATCH_MODULE_EXPORT extern "C" __attribute__((visibility("default")))

namespace gpuwatch::core {

inline constexpr const char* kModuleDirEnv = "GPUWATCH_MODULE_DIR";
inline constexpr const char* kModuleVersionSymbol = "gpuwatch_module_version";

// Directories to look in, best first. env_override: the GPUWATCH_MODULE_DIR value or nullptr;
// when set and not empty it is the only candidate.
std::vector<std::filesystem::path> module_candidates(const std::filesystem::path& executable,
                                                     const char* env_override);

// The address of SYMBOL in module FILE ("gpuwatch-kubelet.so"). The module is loaded once per
// process and never unloaded (thread-safe; a failure is remembered too). Error: not found (says
// where it looked), dlopen's own message (a library it needs is missing), a module of another
// gpuwatch version, or no such symbol.
Result<void*> module_symbol(const std::string& file, const char* symbol);

// module_symbol as a function of type F: `fn->call(args...)`.
template <typename F>
struct ModuleFunction {
  F* call;
};
template <typename F>
Result<ModuleFunction<F>> module_function(const std::string& file, const char* symbol) {
  auto address = module_symbol(file, symbol);
  if (!address) return address.error();
  return ModuleFunction<F>{reinterpret_cast<F*>(*address)};
}

}  // namespace gpuwatch::core
