#include "sim_session/driver_location.hpp"

#include <cstdlib>
#include <fmt/core.h>
#include <system_error>

#include "sim/engine/sim_api.hpp"

namespace gpuwatch::sim_session {

namespace fs = std::filesystem;

std::vector<fs::path> sim_driver_candidates(const fs::path& executable, const char* env_override,
                                            const std::string& folder) {
  if (env_override != nullptr && *env_override != '\0') {
    fs::path dir = env_override;
    // A variant (e.g. sim-driver-legacy) sits beside the overridden default folder.
    if (folder != kSimDriverFolder) dir = dir.parent_path() / folder;
    return {dir};
  }
  const fs::path exe_dir = executable.parent_path();
  return {exe_dir / folder, (exe_dir / ".." / "lib" / "gpuwatch" / folder).lexically_normal()};
}

fs::path current_executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path{} : exe;
}

core::Result<fs::path> find_sim_driver_dir(const std::string& folder) {
  const auto candidates = sim_driver_candidates(current_executable(), std::getenv(kSimDriverDirEnv), folder);
  std::string looked;
  for (const auto& dir : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(dir / kSimDriverLibrary, ec)) return fs::absolute(dir, ec);
    looked += fmt::format("{}{}", looked.empty() ? "" : ", ", dir.string());
  }
  return core::make_error(fmt::format(
      "simulated driver not found: no {} in {} (build the nvidia_ml_sim target, or set {} to its folder)",
      kSimDriverLibrary, looked, kSimDriverDirEnv));
}

core::Result<fs::path> find_sim_ze_driver() {
  const auto candidates = sim_driver_candidates(current_executable(), std::getenv(kSimDriverDirEnv), sim::kZeDriverDirName);
  std::string looked;
  for (const auto& dir : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(dir / sim::kZeDriverFile, ec)) return fs::absolute(dir / sim::kZeDriverFile, ec);
    looked += fmt::format("{}{}", looked.empty() ? "" : ", ", dir.string());
  }
  return core::make_error(
      fmt::format("simulated Level Zero driver not found: no {} in {}", sim::kZeDriverFile, looked));
}

}  // namespace gpuwatch::sim_session
