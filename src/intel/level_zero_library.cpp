#include "intel/level_zero_library.hpp"

#include <cstdlib>
#include <dlfcn.h>

#include <fmt/format.h>

namespace gpuwatch::intel {

core::Result<std::unique_ptr<LevelZeroLibrary>> LevelZeroLibrary::open(const std::string& path) {
  const std::string name = path.empty() ? std::string(kLevelZeroDefaultLibrary) : path;
  // Before the loader can run zeInit (in this process, once): Sysman through the core handles.
  setenv("ZES_ENABLE_SYSMAN", "1", /*overwrite=*/0);
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return core::make_error(fmt::format("cannot load {} ({})", name, why != nullptr ? why : "unknown dlopen error"));
  }
  SysmanFunctions f;
#define GW_SYSMAN_RESOLVE(fn) f.fn = reinterpret_cast<decltype(f.fn)>(dlsym(handle, #fn));  // NOLINT: dlsym
  GW_SYSMAN_FUNCTIONS(GW_SYSMAN_RESOLVE)
#undef GW_SYSMAN_RESOLVE
  if (f.zeInit == nullptr || f.zeDriverGet == nullptr || f.zeDeviceGet == nullptr) {
    dlclose(handle);
    return core::make_error(fmt::format("{} is not a Level Zero loader (no zeInit)", name));
  }
  // Kept loaded: see the header.
  return std::unique_ptr<LevelZeroLibrary>(new LevelZeroLibrary(name, f));
}

}  // namespace gpuwatch::intel
