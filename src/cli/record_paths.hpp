#pragma once
// Where `record` and `history` keep the database, and making its folder.
#include <string>

#include "core/result.hpp"

namespace gpuwatch::cli {

// $XDG_STATE_HOME/gpuwatch/history.db, else $HOME/.local/state/gpuwatch/history.db
// (XDG base directory spec: a relative XDG_STATE_HOME is ignored). Empty when neither is set.
std::string default_database_path(const char* xdg_state_home, const char* home);
std::string default_database_path();  // from the environment

// Makes sure the folder of PATH exists and can be written, creating it (and missing
// parents) when it does not exist. The error says which folder and why.
core::Result<void> prepare_database_directory(const std::string& path);

}  // namespace gpuwatch::cli
