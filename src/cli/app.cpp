#include "cli/app.hpp"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <fmt/core.h>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/did_you_mean.hpp"
#include "cli/hung_exit.hpp"
#include "cli/exit_codes.hpp"
#include "query/options.hpp"
#include "sim_session/standin_process.hpp"

#ifndef GPUWATCH_VERSION
#define GPUWATCH_VERSION "0.0.0"
#endif

namespace gpuwatch::cli {
namespace {

// `gpuwatch --json` means `gpuwatch status --json`: when the first word after the
// global options is an option that is not global, `status` is put in front of it.
void insert_default_command(std::vector<std::string>& args, const std::vector<Command>& commands) {
  const std::vector<std::string> global_with_value = {"--nvml-library", "--simulate"};
  const std::vector<std::string> global_flags = {"--no-color", "--version", "-h", "--help"};
  auto is_one_of = [](const std::string& arg, const std::vector<std::string>& names) {
    for (const auto& name : names) {
      if (arg == name || arg.rfind(name + "=", 0) == 0) return true;
    }
    return false;
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (is_one_of(arg, global_with_value)) {
      if (arg.find('=') == std::string::npos) ++i;  // skip the value
      continue;
    }
    if (is_one_of(arg, global_flags)) continue;
    for (const auto& command : commands) {
      if (command.app->get_name() == arg) return;  // an explicit command
    }
    if (!arg.empty() && arg[0] == '-') args.insert(args.begin() + static_cast<std::ptrdiff_t>(i), "status");
    return;
  }
}

}  // namespace

int run_app(int argc, char** argv) {
  // A stand-in process of `sim run` / --simulate (see standin_process.hpp): sleeps until killed.
  if (sim_session::standin_requested()) sim_session::run_standin();
  CLI::App app{"gpuwatch: GPU monitoring for people who train models on NVIDIA GPUs.\n"
               "With no command, runs `status`. `gpuwatch serve` serves the live dashboard at / "
               "(http://127.0.0.1:9835/), Prometheus /metrics and a JSON API.",
               "gpuwatch"};
  app.footer("Examples:\n"
             "  gpuwatch                                  one glance at every GPU (= gpuwatch status)\n"
             "  gpuwatch status -i 2s                     redraw every 2 seconds\n"
             "  gpuwatch serve                            dashboard at http://127.0.0.1:9835/\n"
             "  gpuwatch --simulate demo status           try it without a GPU (the simulated 8-GPU node)\n"
             "Every flag and exit code: docs/cli.md. No NVIDIA driver here? Add --simulate demo.");
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
      add_record_command(app), add_import_command(app), add_history_command(app), add_report_command(app), add_diagnose_command(app), add_doctor_command(app),
      add_alerts_command(app),
      add_serve_command(app),  add_top_command(app),   add_run_command(app),
  };

  try {
    // nvidia-smi's "-lms" cannot be declared in CLI11: rewritten to --loop-ms (query_options.hpp).
    std::vector<std::string> normalized = query::normalize_nvidia_smi_args(argc, argv);
    insert_default_command(normalized, commands);
    std::vector<char*> normalized_argv;
    for (auto& arg : normalized) normalized_argv.push_back(arg.data());
    app.parse(static_cast<int>(normalized_argv.size()), normalized_argv.data());
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    fmt::print(stderr, "{}", explain_parse_error(app, e));  // with "did you mean" for unknown words
    return kExitUsage;
  }
  if (std::getenv("NO_COLOR") != nullptr) global.no_color = true;

  try {
    int rc = prepare_environment(global, argv[0]);
    if (rc != kExitOk) return rc;
    int code = -1;
    for (auto& command : commands) {
      if (command.app->parsed()) {
        global.command = command.app->get_name();
        code = command.run(global);
        break;
      }
    }
    if (code < 0) code = commands.front().run(global);  // no subcommand: status
    return exit_past_hung_nvml(code);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuwatch: {}\n", e.what());
    return exit_past_hung_nvml(kExitRuntimeError);
  }
}

}  // namespace gpuwatch::cli
