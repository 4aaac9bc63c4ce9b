#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <fmt/core.h>
#include <vector>

#include "cli/command.hpp"
#include "cli/exit_codes.hpp"

#ifndef GPUWATCH_VERSION
#define GPUWATCH_VERSION "0.0.0"
#endif

namespace gpuwatch::cli {

int run_app(int argc, char** argv) {
  CLI::App app{"gpuwatch: GPU monitoring for people who train models on NVIDIA GPUs.\n"
               "With no command, runs `status`.",
               "gpuwatch"};
  app.set_version_flag("--version", std::string("gpuwatch ") + GPUWATCH_VERSION);
  app.require_subcommand(0, 1);
  app.fallthrough();

  GlobalOptions global;
  app.add_option("--nvml-library", global.nvml_library,
                 "Load NVML from this file instead of the system's libnvidia-ml.so.1")
      ->envname("GPUWATCH_NVML_LIBRARY");
  app.add_option("--simulate", global.simulate,
                 "Run on the simulated driver with this scenario (a built-in name or a YAML file)");
  app.add_flag("--no-color", global.no_color, "Never use colours (NO_COLOR is honoured too)");

  std::vector<Command> commands = {
      add_status_command(app), add_query_command(app), add_dmon_command(app),
      add_pmon_command(app),   add_sim_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  if (std::getenv("NO_COLOR") != nullptr) global.no_color = true;

  try {
    int rc = prepare_environment(global, argv[0]);
    if (rc != kExitOk) return rc;
    for (auto& command : commands) {
      if (command.app->parsed()) return command.run(global);
    }
    return commands.front().run(global);  // no subcommand: status
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuwatch: {}\n", e.what());
    return kExitRuntimeError;
  }
}

}  // namespace gpuwatch::cli
