#include "simulation/session.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/core.h>
#include <system_error>

#include "core/did_you_mean.hpp"
#include "core/exit_codes.hpp"
#include "simulation/driver_location.hpp"
#include "sim/engine/sim_api.hpp"

namespace gpuwatch::simulation {

namespace {

std::vector<std::string> builtin_names() {
  std::vector<std::string> names;
  for (const auto& s : sim::list_builtin_scenarios()) names.push_back(s.name);
  return names;
}

}  // namespace

std::filesystem::path SimSession::driver_library() const { return driver_dir / kSimDriverLibrary; }

std::vector<EnvAssignment> SimSession::environment(bool for_child) const {
  SimEnvironmentInput input{driver_dir, scenario, standin_pids, for_child};
  return sim_environment(input, [](const char* name) { return std::getenv(name); }, unix_time_ms());
}

core::Result<std::string> checked_scenario(std::string_view scenario_argument) {
  const std::vector<std::string> names = builtin_names();
  std::string scenario = resolve_scenario_argument(scenario_argument, names);
  std::error_code ec;
  if (std::find(names.begin(), names.end(), scenario) == names.end() && !std::filesystem::exists(scenario, ec)) {
    // A misspelt name (issue 9: `--simulate demoo`): the closest built-ins, and where the list is.
    return core::make_error(fmt::format("scenario '{}': no such built-in scenario or file.{} `gpuwatch sim list` "
                                        "lists the built-in scenarios.",
                                        scenario, core::did_you_mean(scenario, names)),
                            core::kExitUsage);
  }
  auto valid = sim::validate_scenario(scenario);
  if (!valid) return core::make_error(valid.error().message, core::kExitUsage);
  return scenario;
}

core::Result<std::unique_ptr<SimSession>> start_sim_session(std::string_view scenario_argument) {
  auto scenario = checked_scenario(scenario_argument);
  if (!scenario) return scenario.error();
  auto session = std::make_unique<SimSession>();
  session->scenario = *scenario;

  // `driver: {symbols: legacy}` scenarios run on the build without the _v2/_v3 symbols.
  auto legacy = sim::needs_legacy_driver(session->scenario);
  if (!legacy) return core::make_error(legacy.error().message, core::kExitUsage);
  auto driver_dir = find_sim_driver_dir(*legacy ? sim::kLegacyDriverDirName : sim::kDriverDirName);
  if (!driver_dir) return core::make_error(driver_dir.error().message, core::kExitRuntimeError);
  session->driver_dir = *driver_dir;

  auto specs = sim::standin_processes(session->scenario);
  if (!specs) return core::make_error(specs.error().message, core::kExitUsage);
  std::vector<std::vector<std::string>> command_lines;
  for (const auto& spec : *specs) command_lines.push_back(spec.argv);
  auto pids = session->standins.start(command_lines, current_executable());
  if (!pids) return core::make_error(pids.error().message, core::kExitRuntimeError);
  session->standin_pids = sim::standin_pid_env(*specs, *pids);
  return session;
}

}  // namespace gpuwatch::simulation
