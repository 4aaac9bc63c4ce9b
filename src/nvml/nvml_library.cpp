#include "nvml/nvml_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include "backend/abandoned_calls.hpp"

namespace gpuwatch::nvml {
namespace {

std::string not_found_message(const std::string& path, const char* dl_error) {
  std::string shown = path.empty() ? kDefaultLibraryName : path;
  return fmt::format(
      "NVML library not found: cannot load {} ({}).\n"
      "Check that the NVIDIA driver is installed (it provides libnvidia-ml.so.1), that the library is on the\n"
      "loader path (ldconfig -p | grep libnvidia-ml) or given with --nvml-library / GPUWATCH_NVML_LIBRARY,\n"
      "and, in a container, that it was started with GPU access (docker run --gpus all, or the NVIDIA container runtime).\n"
      "`gpuwatch doctor` checks all of this and says which.",
      shown, dl_error != nullptr ? dl_error : "unknown dlopen error");
}

}  // namespace

NvmlLibrary::SimClockSetter NvmlLibrary::sim_clock_setter() const {
  return reinterpret_cast<SimClockSetter>(dlsym(handle_, "gpuwatchSimSetClock"));  // NOLINT: dlsym
}

std::optional<double> NvmlLibrary::sim_time_scale() const {
  using TimeScale = double (*)();
  auto fn = reinterpret_cast<TimeScale>(dlsym(handle_, "gpuwatchSimTimeScale"));  // NOLINT: dlsym
  if (fn == nullptr) return std::nullopt;
  return fn();
}

NvmlLibrary::NvmlLibrary(void* handle, std::string path, NvmlFunctions fns)
    : handle_(handle), path_(std::move(path)), api_(fns) {}

NvmlLibrary::~NvmlLibrary() {
  if (backend::abandoned_calls() > 0) return;  // a thread is still inside NVML: keep it loaded (abandoned_calls.hpp)
  (void)api_.shutdown();
  if (handle_ != nullptr) dlclose(handle_);
}

core::Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::open(const std::string& path) {
  const std::string name = path.empty() ? std::string(kDefaultLibraryName) : path;
  void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return core::make_error(not_found_message(path, dlerror()), kLoadLibraryNotFound);

  NvmlFunctions fns = resolve_functions([handle](const char* symbol) { return dlsym(handle, symbol); });
  auto missing = missing_required(fns);
  if (!missing.empty()) {
    dlclose(handle);
    return core::make_error(fmt::format("{} is not a usable NVML library: missing required symbol(s) {}", name,
                                        fmt::join(missing, ", ")),
                            kLoadSymbolMissing);
  }
  NvmlApi api(fns);
  nvmlReturn_t rc = api.init();
  if (rc != NVML_SUCCESS) {
    std::string text = api.error_string(rc);
    dlclose(handle);
    return core::make_error(
        fmt::format("NVML found ({}) but initialisation failed: {} (NVML error {}).\n"
                    "Check that the NVIDIA kernel driver is loaded (lsmod | grep nvidia; nvidia-smi), that the\n"
                    "driver and library versions match, and that you may open /dev/nvidia*.\n"
                    "`gpuwatch doctor` checks all of this and says which.",
                    name, text, rc),
        kLoadInitFailed);
  }
  return std::unique_ptr<NvmlLibrary>(new NvmlLibrary(handle, name, fns));
}

}  // namespace gpuwatch::nvml
