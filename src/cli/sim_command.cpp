// PLACEHOLDER until the sim command lands: registers the subcommand so the binary links.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/command.hpp"
#include "cli/exit_codes.hpp"

namespace gpuwatch::cli {
Command add_sim_command(CLI::App& app) {
  Command command;
  command.app = app.add_subcommand("sim", "(not built yet)");
  command.app->allow_extras();
  command.run = [](const GlobalOptions&) {
    fmt::print(stderr, "gpuwatch: 'sim' is not built yet\n");
    return kExitRuntimeError;
  };
  return command;
}
}  // namespace gpuwatch::cli
