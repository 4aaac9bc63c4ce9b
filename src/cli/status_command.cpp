// `gpuwatch` / `gpuwatch status`: one glance at every GPU and its processes.
// I/O shell around the pure renderers in status_text.cpp and status_json.cpp.
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <filesystem>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fmt/core.h>

#include "core/json_text.hpp"
#include "attribution/snapshot_processes.hpp"
#include "cli/attribution_options.hpp"
#include "cli/command.hpp"
#include "cli/duration_option.hpp"
#include "cli/exit_codes.hpp"
#include "diagnose/diagnoser.hpp"
#include "diagnose/input_fields.hpp"
#include "live/live_identities.hpp"
#include "history/findings.hpp"
#include "store/database_path.hpp"
#include "store/history_database.hpp"
#include "host/host_name.hpp"
#include "doctor/system_view.hpp"
#include "host_signals/host_sampler.hpp"
#include "status/host_processes.hpp"
#include "status/json.hpp"
#include "status/text.hpp"
#include "terminal/width.hpp"
#include "cli/open_backends.hpp"
#include "sampler/gpu_selection.hpp"
#include "sampler/ticker.hpp"
#include "sampler/sampler.hpp"
#include "sampler/deadline_sampler.hpp"
#include "cli/timeout_option.hpp"
#include "sim/engine/sim_api.hpp"

namespace gpuwatch::cli {
namespace {

struct StatusOptions {
  bool json = false;
  bool jsonl = false;
  std::chrono::milliseconds interval{0};  // 0: once
  long count = 0;                         // 0: no bound (with an interval)
  std::string ids;                        // --id: only these GPUs; empty: all
  AttributionArgs attribution;            // issue 15: container, pod, Slurm job per process
  std::chrono::milliseconds timeout = sampler::kDefaultDeadline;  // --timeout (issue 16)
  bool no_host = false;                   // --no-host: no host line (issue 25)
};

// The host line's CPU, disk and network rates need two readings of the kernel's counters. A
// one-shot status waits for nothing (issue 26 took a 100 ms wait out of it; bench/speed_guard.sh
// holds it there): it reads once, after the GPUs, and shows PSI and memory, its rates absent. With
// --interval the first reading goes before the GPUs and each frame's rates cover the time since the
// previous one.
constexpr std::chrono::milliseconds kHostWindow{0};

std::string host_name() {
  std::string name = host::host_name();
  return name.empty() ? "localhost" : name;
}

status::StatusContext make_context(const core::Snapshot& snapshot, const GlobalOptions& global, bool on_terminal,
                                   host::CpuTracker& cpu) {
  status::StatusContext context;
  context.columns = terminal::output_columns(on_terminal);  // issue 9: compact below 160, wide from 160 or piped
  context.hostname = host_name();
  std::time_t t = std::chrono::system_clock::to_time_t(snapshot.timestamp);
  localtime_r(&t, &context.local_time);
  context.processes = status::read_host_processes(snapshot, cpu);  // user, command, RSS, CPU %
  if (!global.simulate.empty()) {
    context.simulated_scenario = global.simulate;
  } else if (const char* scenario = std::getenv(sim::kScenarioEnv); scenario && *scenario) {
    context.simulated_scenario = scenario;
  }
  return context;
}

// The findings `status` shows come from the last 15 minutes of the recorded history (when
// serve or record keeps one, and it is fresh), then from every sample status takes itself:
// a one-shot status on a machine without history shows what one sample can tell.
diagnose::Diagnoser primed_diagnoser() {
  using namespace std::chrono;
  diagnose::Diagnoser diagnoser;
  const std::string path = store::default_database_path();
  std::error_code ec;
  if (path.empty() || !std::filesystem::exists(path, ec)) return diagnoser;
  store::OpenOptions options;
  options.read_only = true;
  options.single_thread = true;
  options.busy_timeout_ms = 200;
  auto db = store::HistoryDatabase::open(path, options);
  if (!db) return diagnoser;
  const auto now_ms = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  auto fed = history::feed_recorded(**db, now_ms - duration_cast<milliseconds>(minutes(15)).count(), now_ms, diagnoser);
  if (!fed || !fed->last_ms || *fed->last_ms < now_ms - 120'000) return diagnose::Diagnoser();  // none, or stale
  return diagnoser;
}

int run_status(const StatusOptions& options, const GlobalOptions& global) {
  const backend::OpenOptions open = open_options(global);  // shared with the host signals (the simulated host)
  auto backends = open_backends_for_command(global, open);
  if (!backends) return kExitNvmlUnavailable;

  const bool repeat = options.interval.count() > 0;
  const bool on_terminal = terminal::stdout_is_terminal();
  const bool redraw = repeat && !options.json && !options.jsonl && on_terminal;
  const terminal::Style style(!options.json && !options.jsonl && terminal::should_use_color(global.no_color, on_terminal));

  sampler::DeadlineSampler sampler(*backends, options.timeout);
  sampler::SampleOptions sample_options;
  sample_options.fields = status::status_fields();
  sample_options.fields.push_back(core::FieldId::DriverVersion);  // for the header line
  sample_options.fields = diagnose::with_input_fields(std::move(sample_options.fields));  // the finding lines
  if (!repeat) {  // NVLink throughput is a rate between two samples: a one-shot status has none to give (null),
                 // so it does not ask the driver (one call per GPU less on the speed guard's waiting check)
    std::erase_if(sample_options.fields, [](core::FieldId f) {
      return f == core::FieldId::NvlinkTxThroughput || f == core::FieldId::NvlinkRxThroughput;
    });
  }
  sample_options.processes = true;
  sample_options.process_utilization = true;  // per-process GPU % (issue 9)
  host::CpuTracker cpu;                       // per-process CPU %, across samples
  auto ids = sampler::resolve_gpu_ids(options.ids, *backends);
  if (!ids) {
    fmt::print(stderr, "gpuwatch status: --id: {}\n", ids.error().message);
    return kExitNoDevices;
  }
  sample_options.devices = std::move(*ids);

  std::optional<sampler::Ticker> ticker;
  if (repeat) ticker.emplace(options.interval);
  diagnose::Diagnoser diagnoser = primed_diagnoser();
  std::optional<attribution::Attributor> attributor;
  if (!options.attribution.off) {
    // One-shot: each API gets one short call; repeating: a background thread, never in the way.
    attributor.emplace(attributor_options(options.attribution, std::chrono::milliseconds(repeat ? 2000 : 500)));
  }
  live::LiveIdentities identities(live::proc_identity_reader(
      "/proc", attributor ? std::shared_ptr<attribution::Attributor>(&*attributor, [](attribution::Attributor*) {}) : nullptr));
  std::optional<host_signals::HostSampler> host;
  if (!options.no_host) {
    host.emplace(host_signals::HostSampler::under_root(open.host_root, open.simulated_tree));
    // With frames, the first reading goes before the GPUs so the first frame has rates over them;
    // a one-shot status reads once, after them (PSI and memory; rates over a few ms would be noise).
    if (repeat) host->sample();
  }
  bool partial = false;
  for (long n = 0;; ++n) {
    core::Snapshot snapshot = sampler.sample(sample_options);
    for (unsigned index : sample_options.devices) {
      if (snapshot.device_count > 0 && index >= snapshot.device_count) {
        fmt::print(stderr, "gpuwatch status: --id: no GPU {} (this machine has GPUs 0 to {})\n", index,
                   snapshot.device_count - 1);
        return kExitNoDevices;
      }
    }
    status::StatusContext context = make_context(snapshot, global, on_terminal, cpu);
    if (attributor) {  // the first frame asks every API once; later frames take the thread's answers
      context.owners = n > 0 ? attributor->attribute(attribution::gpu_processes(snapshot))
                             : attribution::attribute_once(*attributor, snapshot);
      if (n == 0 && repeat) attributor->start();
    }
    // Who runs each new process, to group GPUs into jobs; primed, the processes already running keep
    // the history's grouping (as live::LiveDiagnosis does).
    if (n == 0 && diagnoser.samples_observed() > 0) identities.adopt(snapshot);
    else identities.feed(snapshot, diagnoser);
    diagnoser.observe(snapshot);
    context.findings = diagnoser.findings();
    if (host) context.host = n == 0 ? host->sample_after(kHostWindow) : host->sample();  // later: over the frame interval
    std::string out;
    if (options.jsonl) {
      out = core::json_text(status::status_json(snapshot, context)) + "\n";
    } else if (options.json) {
      out = core::json_text(status::status_json(snapshot, context), 2) + "\n";
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
    partial = partial || snapshot.any_device_failed();
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
  add_duration_option(*command.app, "-i,--interval", options->interval,
                      "Repeat every DURATION: 2 (seconds), 500ms, 1m (redraws in place on a terminal)",
                      {.hint = "in `status`, -i is the interval, as in gpustat; choose GPUs with --id"});
  command.app->add_option("-c,--count", options->count, "With --interval: stop after N samples")
      ->check(CLI::PositiveNumber);
  command.app->add_option("--id", options->ids, "Only these GPUs: indices, UUIDs or PCI bus ids, comma separated (e.g. 0,2)");
  add_attribution_options(*command.app, options->attribution);
  add_timeout_option(*command.app, options->timeout);
  command.app->add_flag("--no-host", options->no_host,
                         "Leave out the host line (CPU, memory, disks, network) and its 100 ms second reading");
  command.app->footer(
      "Host CPU % of a process: a one-shot status gives its average since it started, as ps does\n"
      "(JSON host_cpu_basis \"lifetime\"); with --interval, from the second frame on, its use over\n"
      "the interval between frames (\"interval\"), as top does.\n\n"
      "The host line (issue 25): the machine's CPU, memory, disks, network and InfiniBand from /proc and\n"
      "/sys. Its rates need two readings of the kernel's counters: a one-shot status takes them 100 ms\n"
      "apart, sampling the GPUs in between; --no-host leaves the line and the wait out.\n\n"
      "Examples:\n"
      "  gpuwatch status -i 2s                 redraw every 2 seconds (-i is the interval here, as in gpustat)\n"
      "  gpuwatch status --id 0,1 --json       GPUs 0 and 1 as JSON\n"
      "  gpuwatch status -i 1 -c 60 --jsonl    a minute of samples, one JSON object per line");
  command.run = [options](const GlobalOptions& global) { return run_status(*options, global); };
  return command;
}

}  // namespace gpuwatch::cli
