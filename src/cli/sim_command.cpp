// `gpuwatch sim`: list, show, run and import simulator scenarios.
// The work is done in sim_session / sim_child_process / standin_process; this file
// only declares the command line (CLI11 is costly to compile, so it stays here).
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <fmt/core.h>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "core/sink_text.hpp"
#include "core/safe_file.hpp"
#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "sim_session/child_process.hpp"
#include "sim_session/session.hpp"
#include "sim/engine/sim_api.hpp"

namespace gpuwatch::cli {

namespace {

struct SimOptions {
  std::string scenario;
  std::vector<std::string> command;
  std::vector<std::string> captures;
  std::string output = "-";
  bool keep_time = false;
};

int report(const core::Error& error) {
  fmt::print(stderr, "gpuwatch: {}\n", core::terminal_lines(error.message));  // may quote the scenario (issue 31)
  return error.code != 0 ? error.code : kExitRuntimeError;
}

int run_list() {
  const auto scenarios = sim::list_builtin_scenarios();
  size_t width = 0;
  for (const auto& s : scenarios) width = std::max(width, s.name.size());
  for (const auto& s : scenarios) fmt::print("{:<{}}  {}\n", core::terminal_text(s.name), width, core::terminal_text(s.summary));
  return kExitOk;
}

int run_show(const SimOptions& options) {
  auto scenario = sim_session::checked_scenario(options.scenario);
  if (!scenario) return report(scenario.error());
  auto text = sim::describe_scenario(*scenario);
  if (!text) return report(core::make_error(text.error().message, kExitUsage));
  fmt::print("{}", *text);
  if (!text->empty() && text->back() != '\n') fmt::print("\n");
  return kExitOk;
}

int run_run(const SimOptions& options) {
  auto session = sim_session::start_sim_session(options.scenario);
  if (!session) return report(session.error());
  sim_session::apply_environment((*session)->environment(/*for_child=*/true));
  return sim_session::run_child_process(options.command);  // the session's stand-ins die with it
}

int run_import(const SimOptions& options) {
  auto yaml = sim::import_captures(options.captures, options.keep_time);
  if (!yaml) return report(core::make_error(yaml.error().message, kExitUsage));
  if (options.output == "-") {
    fmt::print("{}", *yaml);
    return kExitOk;
  }
  if (auto written = core::write_file_atomically(options.output, *yaml); !written) return report(written.error());
  return kExitOk;
}

}  // namespace

Command add_sim_command(CLI::App& app) {
  auto options = std::make_shared<SimOptions>();
  Command command;
  command.app = app.add_subcommand("sim", "Simulated GPUs: list, show and run scenarios, import nvidia-smi captures");
  CLI::App* sim = command.app;
  sim->require_subcommand(1);
  sim->footer("Examples:\n"
              "  gpuwatch sim list                             the built-in scenarios\n"
              "  gpuwatch sim show thermal_runaway             its GPUs, processes and timeline\n"
              "  gpuwatch sim run demo -- gpustat --json       any program on the simulated driver\n"
              "  gpuwatch sim import q.csv apps.csv -o node.yaml   real nvidia-smi output -> scenario");

  CLI::App* list = sim->add_subcommand("list", "List the built-in scenarios");
  list->footer("Examples:\n"
               "  gpuwatch sim list\n"
               "  gpuwatch --simulate memory_leak status    then any command on one of them");
  CLI::App* show = sim->add_subcommand("show", "Show a scenario's GPUs, processes and timeline");
  show->add_option("scenario", options->scenario, "Built-in scenario name or YAML file")->required();
  show->footer("Examples:\n"
               "  gpuwatch sim show demo\n"
               "  gpuwatch sim show node.yaml             a scenario file (e.g. from `sim import`)");

  CLI::App* run = sim->add_subcommand(
      "run", "Run a program (nvtop, gpustat, a pynvml script, gpuwatch...) on the simulated driver");
  run->add_option("scenario", options->scenario, "Built-in scenario name or YAML file")->required();
  // After `--` every word is the command's (CLI11 2.1 keeps them in order); without `--`
  // a command word that looks like an option would be taken as ours.
  run->add_option("command", options->command, "The command to run and its arguments, after --")->required();
  run->footer("Usage: gpuwatch sim run SCENARIO -- COMMAND [ARGS...]\n"
              "Examples:\n"
              "  gpuwatch sim run demo -- gpustat --json\n"
              "  gpuwatch sim run thermal_runaway -- nvtop\n"
              "  gpuwatch sim run node.yaml -- python3 my_pynvml_script.py");

  CLI::App* import = sim->add_subcommand(
      "import", "Turn nvidia-smi captures (--query-gpu CSV with header; -q text; --query-compute-apps CSV) into a scenario");
  import->add_option("captures", options->captures, "Capture files")->required();
  import->add_option("-o,--output", options->output, "Scenario file to write ('-': standard output)");
  import->add_flag("--keep-time", options->keep_time,
                   "Keep the log's own timestamps: `sim record` renders from its first row's time (start_time), not ending now");
  import->footer("Examples:\n"
                 "  nvidia-smi --query-gpu=index,uuid,name,memory.used,utilization.gpu --format=csv -l 1 > q.csv\n"
                 "  gpuwatch sim import q.csv -o node.yaml\n"
                 "  gpuwatch sim import q.csv apps.csv -o node.yaml   with --query-compute-apps output too");

  Command record = add_sim_record_command(*sim);

  command.run = [options, list, show, run, import, record](const GlobalOptions& global) {
    if (record.app->parsed()) return record.run(global);
    if (list->parsed()) return run_list();
    if (show->parsed()) return run_show(*options);
    if (run->parsed()) return run_run(*options);
    if (import->parsed()) return run_import(*options);
    return static_cast<int>(kExitUsage);
  };
  return command;
}

}  // namespace gpuwatch::cli
