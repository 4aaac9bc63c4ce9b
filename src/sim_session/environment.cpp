#include "sim_session/environment.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <system_error>

#include "sim_session/driver_location.hpp"
#include "sim/engine/sim_api.hpp"

namespace gpuwatch::sim_session {

namespace fs = std::filesystem;

std::string prepend_search_path(const std::string& dir, const char* existing) {
  if (existing == nullptr || *existing == '\0') return dir;
  return dir + ":" + existing;
}

std::string resolve_scenario_argument(std::string_view argument, const std::vector<std::string>& builtin_names) {
  const std::string text(argument);
  const bool looks_like_path = text.find('/') != std::string::npos;
  if (!looks_like_path && std::find(builtin_names.begin(), builtin_names.end(), text) != builtin_names.end()) {
    return text;
  }
  std::error_code ec;
  if (!text.empty() && fs::is_regular_file(text, ec)) {
    fs::path absolute = fs::absolute(text, ec);
    if (!ec) return absolute.lexically_normal().string();
  }
  return text;
}

std::vector<EnvAssignment> sim_environment(const SimEnvironmentInput& input, const EnvLookup& lookup,
                                           std::int64_t now_ms) {
  std::vector<EnvAssignment> out;
  if (input.for_child) {
    out.push_back({"LD_LIBRARY_PATH", prepend_search_path(input.driver_dir.string(), lookup("LD_LIBRARY_PATH"))});
    out.push_back({"GPUWATCH_NVML_LIBRARY", (input.driver_dir / kSimDriverLibrary).string()});
  }
  out.push_back({sim::kScenarioEnv, input.scenario});
  const char* epoch = lookup(sim::kEpochEnv);
  if (epoch == nullptr || *epoch == '\0') out.push_back({sim::kEpochEnv, std::to_string(now_ms)});
  out.push_back({sim::kPidsEnv, input.standin_pids});
  if (!input.host_root.empty()) out.push_back({"GPUWATCH_HOST_ROOT", input.host_root.string()});
  if (input.vendor_files) out.push_back({sim::kVendorFilesEnv, "1"});
  if (!input.ze_driver.empty()) {
    out.push_back({"ZE_ENABLE_ALT_DRIVERS", input.ze_driver.string()});
    out.push_back({"ZES_ENABLE_SYSMAN", "1"});
  }
  return out;
}

void apply_environment(const std::vector<EnvAssignment>& assignments) {
  for (const auto& a : assignments) ::setenv(a.name.c_str(), a.value.c_str(), 1);
}

std::int64_t unix_time_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace gpuwatch::sim_session
