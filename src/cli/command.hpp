#pragma once
// Each subcommand lives in its own file and registers itself with the CLI11 app
// through an add_<name>_command function declared here. app.cpp parses the command
// line, prepares the environment (simulation, library path) and then runs the one
// subcommand that was given.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cli/global_options.hpp"

namespace CLI {
class App;
}

namespace gpuwatch::cli {

struct Command {
  CLI::App* app = nullptr;                          // the CLI11 subcommand
  std::function<int(const GlobalOptions&)> run;     // returns an ExitCode
};

Command add_status_command(CLI::App& app);
Command add_query_command(CLI::App& app);
Command add_dmon_command(CLI::App& app);
Command add_pmon_command(CLI::App& app);
Command add_sim_command(CLI::App& app);
Command add_sim_record_command(CLI::App& sim);  // `sim record`, added by add_sim_command
Command add_record_command(CLI::App& app);
Command add_history_command(CLI::App& app);
Command add_serve_command(CLI::App& app);
Command add_report_command(CLI::App& app);
Command add_diagnose_command(CLI::App& app);
Command add_alerts_command(CLI::App& app);  // alerts_command.cpp: `alerts test CHANNEL`
Command add_top_command(CLI::App& app);
Command add_run_command(CLI::App& app);  // run_command.cpp: `gpuwatch run -- CMD` (issue 14)
Command add_import_command(CLI::App& app);  // import_command.cpp: real logs into the history (issue 24)
Command add_doctor_command(CLI::App& app);  // doctor_command.cpp: what is wrong with the GPU setup (issue 30)

// Applies --simulate and --nvml-library before a command runs: points NVML at the
// simulated driver, exports the scenario to child processes and starts stand-in
// processes. Returns an ExitCode (kExitOk to go on). Implemented in simulation_setup.cpp.
int prepare_environment(GlobalOptions& global, const char* argv0);
// Under --simulate, what a child process needs besides the inherited scenario variables to load
// the simulated driver too (LD_LIBRARY_PATH, GPUWATCH_NVML_LIBRARY), as `sim run` sets them;
// empty otherwise. For commands that start a program: `run`.
std::vector<std::pair<std::string, std::string>> simulated_child_environment();

}  // namespace gpuwatch::cli
