// `gpuwatch` / `gpuwatch status`: one glance at every GPU and its processes.
// I/O shell around the pure renderers in status_text.cpp and status_json.cpp.
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fmt/core.h>

#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "status/json.hpp"
#include "status/text.hpp"
#include "cli/open_nvml.hpp"
#include "sampler/gpu_selection.hpp"
#include "sampler/ticker.hpp"
#include "sampler/sampler.hpp"
#include "sim/engine/sim_api.hpp"

namespace gpuwatch::cli {
namespace {

struct StatusOptions {
  bool json = false;
  bool jsonl = false;
  double interval_s = 0;  // 0: once
  long count = 0;         // 0: no bound (with an interval)
};

std::string host_name() {
  char buffer[256] = {};
  if (gethostname(buffer, sizeof buffer - 1) != 0) return "localhost";
  return buffer;
}

std::size_t terminal_columns() {
  winsize size{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 0;
}

status::StatusContext make_context(const core::Snapshot& snapshot, const GlobalOptions& global, bool on_terminal) {
  status::StatusContext context;
  if (on_terminal) context.columns = terminal_columns();
  context.hostname = host_name();
  std::time_t t = std::chrono::system_clock::to_time_t(snapshot.timestamp);
  localtime_r(&t, &context.local_time);
  for (const auto& device : snapshot.devices) {
    for (const auto& process : device.processes) {
      if (!context.processes.count(process.pid)) context.processes[process.pid] = host::read_process_info(process.pid);
    }
  }
  if (!global.simulate.empty()) {
    context.simulated_scenario = global.simulate;
  } else if (const char* scenario = std::getenv(sim::kScenarioEnv); scenario && *scenario) {
    context.simulated_scenario = scenario;
  }
  return context;
}

bool any_device_failed(const core::Snapshot& snapshot) {
  for (const auto& device : snapshot.devices) {
    if (device.state != core::DeviceState::Ok) return true;
  }
  return false;
}

int run_status(const StatusOptions& options, const GlobalOptions& global) {
  auto library = open_nvml_for_command(global);
  if (!library) return kExitNvmlUnavailable;

  const bool repeat = options.interval_s > 0;
  const bool on_terminal = terminal::stdout_is_terminal();
  const bool redraw = repeat && !options.json && !options.jsonl && on_terminal;
  const terminal::Style style(!options.json && !options.jsonl && terminal::should_use_color(global.no_color, on_terminal));

  sampler::Sampler sampler(library->api());
  sampler::SampleOptions sample_options;
  sample_options.fields = status::status_fields();
  sample_options.fields.push_back(core::FieldId::DriverVersion);  // for the header line
  sample_options.processes = true;

  std::optional<sampler::Ticker> ticker;
  if (repeat) ticker.emplace(std::chrono::duration<double>(options.interval_s));
  bool partial = false;
  for (long n = 0;; ++n) {
    core::Snapshot snapshot = sampler.sample(sample_options);
    status::StatusContext context = make_context(snapshot, global, on_terminal);
    std::string out;
    if (options.jsonl) {
      out = status::status_json(snapshot, context).dump() + "\n";
    } else if (options.json) {
      out = status::status_json(snapshot, context).dump(2) + "\n";
    } else {
      out = std::string(redraw ? terminal::kClearScreen : "") + status::render_status_text(snapshot, context, style);
    }
    if (!snapshot.devices.empty() || options.json || options.jsonl) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      std::fflush(stdout);
    }
    if (snapshot.devices.empty()) {
      fmt::print(stderr, "gpuwatch: NVML works but reports no GPU\n");
      return kExitNoDevices;
    }
    partial = partial || any_device_failed(snapshot);
    if (!repeat || (options.count > 0 && n + 1 >= options.count)) break;
    ticker->wait();
  }
  return partial ? kExitPartial : kExitOk;
}

}  // namespace

Command add_status_command(CLI::App& app) {
  auto options = std::make_shared<StatusOptions>();
  Command command;
  command.app = app.add_subcommand("status", "One glance at every GPU and its processes (the default command)");
  auto* json = command.app->add_flag("--json", options->json,
                                     "Print JSON: numbers in base units, unit-suffixed keys, null when unsupported");
  command.app->add_flag("--jsonl", options->jsonl, "Print one compact JSON object per sample per line")
      ->excludes(json);
  command.app->add_option("-i,--interval", options->interval_s, "Repeat every SECONDS (redraws in place on a terminal)")
      ->check(CLI::PositiveNumber);
  command.app->add_option("-c,--count", options->count, "With --interval: stop after N samples")
      ->check(CLI::PositiveNumber);
  command.run = [options](const GlobalOptions& global) { return run_status(*options, global); };
  return command;
}

}  // namespace gpuwatch::cli
