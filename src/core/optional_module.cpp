#include "core/optional_module.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <system_error>

#ifndef GPUWATCH_MODULE_VERSION
#error "GPUWATCH_MODULE_VERSION is set by src/core/CMakeLists.txt"
#endif

namespace gpuwatch::core {

namespace fs = std::filesystem;

namespace {

fs::path current_executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path{} : exe;
}

// dlopen's answer for FILE: the first candidate folder that holds it.
Result<void*> load(const std::string& file) {
  std::string looked;
  for (const auto& dir : module_candidates(current_executable(), std::getenv(kModuleDirEnv))) {
    const fs::path path = dir / file;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      looked += (looked.empty() ? "" : ", ") + dir.string();
      continue;
    }
    // RTLD_LOCAL: the module's libraries (gRPC, libcurl) stay out of the global namespace.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      return make_error("cannot load the module " + path.string() + ": " + (why ? why : "dlopen failed"));
    }
    using VersionFn = const char*();
    auto* version = reinterpret_cast<VersionFn*>(dlsym(handle, kModuleVersionSymbol));
    if (version == nullptr || std::strcmp(version(), GPUWATCH_MODULE_VERSION) != 0) {
      const std::string theirs = version == nullptr ? "no version" : std::string("version ") + version();
      return make_error("the module " + path.string() + " has " + theirs + ", this gpuwatch is version " +
                        GPUWATCH_MODULE_VERSION + " (reinstall gpuwatch, or set " + kModuleDirEnv +
                        " to the right folder)");
    }
    return handle;
  }
  return make_error("the module " + file + " is not installed: not in " + looked + " (reinstall gpuwatch, or set " +
                    kModuleDirEnv + " to the folder that holds it)");
}

}  // namespace

std::vector<fs::path> module_candidates(const fs::path& executable, const char* env_override) {
  if (env_override != nullptr && *env_override != '\0') return {fs::path(env_override)};
  const fs::path exe_dir = executable.parent_path();
  return {exe_dir / "modules", (exe_dir / ".." / "lib" / "gpuwatch" / "modules").lexically_normal()};
}

Result<void*> module_symbol(const std::string& file, const char* symbol) {
  static std::mutex mutex;
  static std::map<std::string, Result<void*>> loaded;  // never unloaded: the modules' libraries keep threads
  std::lock_guard lock(mutex);
  auto it = loaded.find(file);
  if (it == loaded.end()) it = loaded.emplace(file, load(file)).first;
  if (!it->second) return it->second.error();
  dlerror();
  void* address = dlsym(*it->second, symbol);
  if (address == nullptr) return make_error("the module " + file + " has no " + symbol);
  return address;
}

}  // namespace gpuwatch::core
