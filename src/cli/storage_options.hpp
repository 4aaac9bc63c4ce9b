#pragma once
#include <string>

#include "recorder/storage.hpp"

namespace CLI {
class App;
}

namespace gpuwatch::cli {

// Adds --db (with DB_HELP), --flush-interval, --retain-raw, --retain-1m, --retain-1h, --max-size,
// --no-record-commands to `record`, `serve` and `run`.
void add_storage_options(CLI::App& command, recorder::StorageArgs& args, const std::string& db_help);

}  // namespace gpuwatch::cli
