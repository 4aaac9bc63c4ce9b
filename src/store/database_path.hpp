#pragma once
// Where `record`, `serve`, `history` and `report` keep the database, and making its folder.
#include <string>

#include "core/result.hpp"

namespace gpuwatch::store {

// The default history database, first match wins:
//  1. $STATE_DIRECTORY/history.db: systemd sets STATE_DIRECTORY for a unit with
//     StateDirectory=gpuwatch (/var/lib/gpuwatch); with several directories
//     (colon-separated) the first is used;
//  2. $XDG_STATE_HOME/gpuwatch/history.db;
//  3. $HOME/.local/state/gpuwatch/history.db.
// A relative or empty STATE_DIRECTORY / XDG_STATE_HOME is ignored (XDG base directory
// spec: such a value is invalid). Empty when none applies.
std::string default_database_path(const char* state_directory, const char* xdg_state_home, const char* home);
std::string default_database_path(const char* xdg_state_home, const char* home);  // no STATE_DIRECTORY
// From the environment: under --simulate or `sim run` (GPUWATCH_SIM_SCENARIO set), the
// scenario's own file, simulated_database_path(); else the real one above.
std::string default_database_path();

// The scenario this process runs on: GPUWATCH_SIM_SCENARIO (set by --simulate for the process
// itself, and by `sim run` for its command), "" on a real driver.
std::string simulated_scenario_from_environment();
// Simulated data never goes into the real history: the database of scenario SCENARIO is
// simulated/<name>.db beside REAL_DEFAULT (e.g. ~/.local/state/gpuwatch/simulated/demo.db),
// <name> being the built-in name or the file name of a scenario file without .yaml/.yml.
// Empty when REAL_DEFAULT is.
std::string simulated_database_path(const std::string& scenario, const std::string& real_default);

// What to tell the user when the default database is a simulated one (no --db given under a
// simulation): "simulated scenario demo: history goes to X, not to your own history Y";
// "" on a real driver.
std::string simulated_default_note();

// The error to give when default_database_path() is empty and no --db was given.
std::string no_default_database_message();

// Makes sure the folder of PATH exists and can be written, creating it (and missing
// parents) when it does not exist. The error says which folder and why.
core::Result<void> prepare_database_directory(const std::string& path);

}  // namespace gpuwatch::store
