// `gpuwatch top`: the interactive terminal UI (src/tui/). Flags and wiring only: the config
// file, NVML, the data source, then tui::run_top.
#include <CLI/CLI.hpp>
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fmt/core.h>
#include <memory>
#include <string>
#include <vector>

#include "cli/attribution_options.hpp"
#include "cli/command.hpp"
#include "cli/duration_option.hpp"
#include "cli/command_error.hpp"
#include "cli/exit_codes.hpp"
#include "cli/open_backends.hpp"
#include "remote/remote_config.hpp"
#include "host/host_name.hpp"
#include "store/database_path.hpp"
#include "sim/engine/sim_api.hpp"
#include "tui/config.hpp"
#include "tui/local_source.hpp"
#include "tui/remote_source.hpp"
#include "tui/top_app.hpp"

namespace gpuwatch::cli {
namespace {

struct TopArgs {
  std::chrono::milliseconds interval{1000};
  bool readonly = false;
  std::string layout, theme, sort, config;
  std::vector<std::string> connect;  // other hosts' serve URLs
  std::string connect_config;        // hosts with basic auth and TLS (remote/remote_config.hpp)
  AttributionArgs attribution;       // the OWNER column (container, pod, Slurm job)
  bool no_host = false;              // issue 25: no host line
};

int run_top_command(const TopArgs& args, const GlobalOptions& global) {
  const std::string path = !args.config.empty() ? args.config
                                                : tui::config_path(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME"));
  auto config = path.empty() ? core::Result<tui::TopConfig>(tui::TopConfig{}) : tui::load_config(path);
  if (!config) return command_error("top", config.error().message, kExitUsage);
  if (!args.layout.empty()) {
    config->layout = tui::layout_from_string(args.layout);
    if (!config->layout) return command_error("top", "--layout: '" + args.layout + "' is not one of auto, panels, compact, lines", kExitUsage);
  }
  if (!args.theme.empty()) {
    config->theme = tui::theme_from_string(args.theme);
    if (!config->theme) return command_error("top", "--theme: '" + args.theme + "' is not one of default, light, mono", kExitUsage);
  }
  if (!args.sort.empty()) {
    config->sort = tui::column_from_key(args.sort);
    if (!config->sort) return command_error("top", "--sort: '" + args.sort + "' is not a column (pid, user, gpu, type, gpu_percent, "
                                   "gpu_memory, cpu_percent, rss, time, owner, command)", kExitUsage);
    config->descending.reset();
  }
  std::vector<remote::RemoteEndpoint> endpoints;
  for (const auto& url : args.connect) {
    auto endpoint = remote::parse_remote_url(url);
    if (!endpoint) return command_error("top", endpoint.error().message, kExitUsage);
    endpoints.push_back(std::move(*endpoint));
  }
  if (!args.connect_config.empty()) {
    auto hosts = remote::load_remote_config(args.connect_config);
    if (!hosts) return command_error("top", hosts.error().message, kExitUsage);
    endpoints.insert(endpoints.end(), hosts->begin(), hosts->end());
  }
  if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
    return command_error("top", "top needs a terminal (stdin and stdout); for a script use `gpuwatch status -i 1 --jsonl`", kExitUsage);
  }

  // One malloc arena for every thread: glibc would give each sampling thread its own (up to 8 per
  // core), each keeping its own free memory, for no speed gained at one sample a second. Small
  // (0.1 MiB of private memory on the 8-GPU demo node: docs/performance.md), but free. Set before
  // any thread starts.
  mallopt(M_ARENA_MAX, 1);

  tui::TopOptions options;
  options.interval = args.interval;
  options.readonly = args.readonly;
  options.color = !global.no_color;
  options.config_path = path;
  options.config = *config;
  options.title = "gpuwatch top  " + host::host_name();
  if (!global.simulate.empty()) options.note = "[simulated: " + global.simulate + "]";
  else if (const char* scenario = std::getenv(sim::kScenarioEnv); scenario && *scenario) options.note = std::string("[simulated: ") + scenario + "]";

  if (!endpoints.empty()) {  // other hosts only: no NVML here
    options.title = fmt::format("gpuwatch top  {} host{}", endpoints.size(), endpoints.size() == 1 ? "" : "s");
    options.note.clear();
    tui::RemoteSource source(endpoints, args.interval);
    return tui::run_top(source, options).exit_code;
  }

  const backend::OpenOptions opened_with = open_options(global);  // the host line reads the same root
  auto backends = open_backends_for_command(global, opened_with);
  if (!backends) return kExitNvmlUnavailable;
  live::HostSignalsOptions host;  // issue 25: the host line under the title
  host.enabled = !args.no_host;
  host.root = opened_with.host_root;
  host.simulated_tree = opened_with.simulated_tree;
  std::shared_ptr<attribution::Attributor> attributor;
  if (!args.attribution.off) {
    auto attribution_options = attributor_options(args.attribution, std::chrono::milliseconds(1000));
    attribution_options.log = [](const std::string&) {};  // a line on stderr would tear the screen
    attributor = std::make_shared<attribution::Attributor>(std::move(attribution_options));
  }
  // Continuity (issue 23): the finding lines go on from this node's recorded history (serve's or
  // record's, in the default database), as status does, instead of waiting minutes for their windows.
  tui::LocalSource source(*backends, args.interval, {}, attributor, store::default_database_path(), std::move(host));
  tui::TopResult result = tui::run_top(source, options);
  if (!result.source_stopped) {
    // A sampling thread is stuck inside NVML: unloading the library under it would crash.
    fmt::print(stderr, "gpuwatch top: an NVML call is still hanging; exiting without waiting for it\n");
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(result.exit_code);
  }
  return result.exit_code;
}

}  // namespace

Command add_top_command(CLI::App& app) {
  auto args = std::make_shared<TopArgs>();
  Command command;
  command.app = app.add_subcommand("top", "Interactive terminal UI: per-GPU bars and charts, findings, processes "
                                          "(sort, filter, signal); keys: ? in the UI, docs/top.md");
  auto* c = command.app;
  add_duration_option(*c, "-d,--interval", args->interval,
                      "Time between refreshes, e.g. 500ms, 2 (seconds); at least 250ms [default: 1s]",
                      {.min = tui::kMinInterval, .hint = "top refreshes at most every 250ms"});
  c->add_flag("--readonly", args->readonly, "Never send signals (the K key is disabled)");
  c->add_option("--layout", args->layout, "auto, panels, compact or lines [default: auto, or the config file's]");
  c->add_option("--theme", args->theme, "default, light or mono (NO_COLOR and --no-color force mono) [default: default]");
  c->add_option("--sort", args->sort,
                "Sort processes by pid, user, gpu, type, gpu_percent, gpu_memory, cpu_percent, rss, time, owner or command "
                "[default: gpu_memory]");
  c->add_option("--config", args->config,
                "Settings file to read and to save with the w key [default: $XDG_CONFIG_HOME/gpuwatch/top.yaml, "
                "else ~/.config/gpuwatch/top.yaml]");
  c->add_option("--connect", args->connect,
                "Show other hosts instead of this one: their `gpuwatch serve` URLs, comma separated "
                "(http://HOST:PORT, https://USER:PASSWORD@HOST:PORT); each is read on its own thread")
      ->delimiter(',');
  c->add_option("--connect-config", args->connect_config,
                "Other hosts from a YAML file, with basic auth (password_file) and TLS (ca_file, client certificate); "
                "see docs/top.md")
      ->check(CLI::ExistingFile);
  c->add_flag("--no-host", args->no_host,
              "Leave out the host line (CPU, iowait, memory and swap, disks, network, InfiniBand) and its sampling thread");
  add_attribution_options(*c, args->attribution);
  c->footer("Examples:\n"
            "  gpuwatch top                         every GPU, its findings and processes; ? shows the keys\n"
            "  gpuwatch top -d 500ms --readonly     refresh twice a second, never send signals\n"
            "  gpuwatch --simulate demo top         on the simulated 8-GPU demo node\n"
            "  gpuwatch top --connect http://gpu1:9835,http://gpu2:9835   two hosts' serve, side by side");
  command.run = [args](const GlobalOptions& global) { return run_top_command(*args, global); };
  return command;
}

}  // namespace gpuwatch::cli
