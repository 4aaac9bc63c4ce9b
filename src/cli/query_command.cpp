// PLACEHOLDER until the query command lands: registers the subcommand so the binary links.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/command.hpp"
#include "cli/exit_codes.hpp"

namespace gpuwatch::cli {
Command add_query_command(CLI::App& app) {
  Command command;
  command.app = app.add_subcommand("query", "(not built yet)");
  command.app->allow_extras();
  command.run = [](const GlobalOptions&) {
    fmt::print(stderr, "gpuwatch: 'query' is not built yet\n");
    return kExitRuntimeError;
  };
  return command;
}
}  // namespace gpuwatch::cli
