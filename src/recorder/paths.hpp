#pragma once
// Where `record`, `serve`, `history` and `report` keep the database, and making its folder.
#include <string>

#include "core/result.hpp"

namespace gpuwatch::recorder {

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
std::string default_database_path();  // from the environment

// The error to give when default_database_path() is empty and no --db was given.
std::string no_default_database_message();

// Makes sure the folder of PATH exists and can be written, creating it (and missing
// parents) when it does not exist. The error says which folder and why.
core::Result<void> prepare_database_directory(const std::string& path);

}  // namespace gpuwatch::recorder
