#include "store/database_path.hpp"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace gpuwatch::store {

std::string default_database_path(const char* state_directory, const char* xdg_state_home, const char* home) {
  if (state_directory != nullptr) {
    std::string first(state_directory);
    first = first.substr(0, first.find(':'));
    while (first.size() > 1 && first.back() == '/') first.pop_back();
    if (first.size() > 1 && first[0] == '/') return first + "/history.db";  // not relative, not "/"
  }
  if (xdg_state_home != nullptr && xdg_state_home[0] == '/') return std::string(xdg_state_home) + "/gpuwatch/history.db";
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.local/state/gpuwatch/history.db";
  return {};
}

std::string default_database_path(const char* xdg_state_home, const char* home) {
  return default_database_path(nullptr, xdg_state_home, home);
}

std::string default_database_path() {
  std::string real = default_database_path(std::getenv("STATE_DIRECTORY"), std::getenv("XDG_STATE_HOME"), std::getenv("HOME"));
  const std::string scenario = simulated_scenario_from_environment();
  return scenario.empty() ? real : simulated_database_path(scenario, real);
}

std::string simulated_scenario_from_environment() {
  // sim::kScenarioEnv (sim/engine/sim_api.hpp; the recorder does not link the simulator).
  const char* scenario = std::getenv("GPUWATCH_SIM_SCENARIO");
  return scenario != nullptr ? std::string(scenario) : std::string();
}

std::string simulated_database_path(const std::string& scenario, const std::string& real_default) {
  if (real_default.empty()) return {};
  std::filesystem::path file(scenario);
  std::string name = file.filename().string();
  for (const char* extension : {".yaml", ".yml"}) {
    const std::string ext(extension);
    if (name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0) {
      name.erase(name.size() - ext.size());
      break;
    }
  }
  for (char& c : name) {
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
    if (!plain) c = '_';
  }
  if (name.empty() || name == "." || name == "..") name = "scenario";
  return (std::filesystem::path(real_default).parent_path() / "simulated" / (name + ".db")).string();
}

std::string simulated_default_note() {
  const std::string scenario = simulated_scenario_from_environment();
  if (scenario.empty()) return {};
  std::string real = default_database_path(std::getenv("STATE_DIRECTORY"), std::getenv("XDG_STATE_HOME"), std::getenv("HOME"));
  std::string simulated = simulated_database_path(scenario, real);
  if (simulated.empty()) return {};
  return "simulated scenario " + scenario + ": history goes to " + simulated + ", not to your own history " + real +
         " (--db PATH to choose)";
}

std::string no_default_database_message() {
  return "no --db given and none of STATE_DIRECTORY, XDG_STATE_HOME or HOME is set";
}

core::Result<void> prepare_database_directory(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path folder = fs::path(path).parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  if (!fs::exists(folder, ec)) {
    fs::create_directories(folder, ec);
    if (ec) return core::make_error("cannot create the folder " + folder.string() + " for " + path + ": " + ec.message(), 1);
  } else if (!fs::is_directory(folder, ec)) {
    return core::make_error(folder.string() + " is not a folder (needed for " + path + ")", 1);
  }
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    return core::make_error("cannot write to the folder " + folder.string() + " (" + std::strerror(errno) +
                                "): choose another place with --db PATH",
                            1);
  }
  if (fs::exists(path, ec) && ::access(path.c_str(), W_OK) != 0) {
    return core::make_error("cannot write to " + path + " (" + std::strerror(errno) + ")", 1);
  }
  return {};
}

}  // namespace gpuwatch::store
