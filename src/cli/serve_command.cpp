// `gpuwatch serve`: a Prometheus exporter. The live session (live/live_session.hpp: one sampling
// thread per GPU, the live diagnosis, alerts, the recorder) and an HTTP server (exporter/http_server.hpp) whose handlers only read
// the latest samples. SIGINT/SIGTERM stop it: they are blocked in every thread and
// taken by the main thread with sigtimedwait, so no handler runs in a worker.
#include <CLI/CLI.hpp>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fmt/core.h>
#include <memory>
#include <string>
#include <thread>

#include "cli/attribution_options.hpp"
#include "alert_runtime/live_alerts.hpp"
#include "cli/alert_options.hpp"
#include "cli/command.hpp"
#include "cli/command_error.hpp"
#include "cli/energy_options.hpp"
#include "cli/exit_codes.hpp"
#include "diagnose/input_fields.hpp"
#include "cli/storage_options.hpp"
#include "recorder/storage.hpp"
#include "core/time_spec.hpp"
#include "recorder/recorder_thread.hpp"
#include "recorder/store_findings.hpp"
#include "recorder/store_history.hpp"
#include "recorder/store_jobs.hpp"
#include "service/notify.hpp"
#include "host/host_name.hpp"
#include "host/process_info.hpp"
#include "cli/open_backends.hpp"
#include "sampler/gpu_selection.hpp"
#include "sampler/ticker.hpp"
#include "live/live_session.hpp"
#include "exporter/metric_list.hpp"
#include "exporter/http_server.hpp"
#include "exporter/http/tls_context.hpp"
#include "exporter/http/web_config.hpp"
#include "push/collector_pusher.hpp"

#ifndef GPUWATCH_VERSION
#define GPUWATCH_VERSION "0.0.0"
#endif

namespace gpuwatch::cli {
namespace {

struct ServeArgs {
  std::string listen = std::string(exporter::kDefaultListen);
  std::string interval = "1s";
  std::string stale_after;
  bool per_process = false;
  bool insecure = false;
  std::size_t threads = 2;                 // the HTTP server's pool for slow requests (never per connection)
  std::size_t max_connections = 512;
  std::size_t max_event_streams = exporter::kDefaultEventStreams;
  std::string header_timeout = "10s";     // total deadline for a request's headers (slowloris)
  std::string keep_alive_timeout = "5s";  // idle kept-alive connections
  std::string compat;
  std::string history = "10m";  // /api/v1/history ring buffer, per GPU
  recorder::StorageArgs storage;          // serve records too (recorder/recorder_thread.hpp), unless --no-record
  bool no_record = false;
  std::string web_config_file;   // exporter-toolkit format: TLS, basic auth (exporter/http/web_config.hpp)
  AlertArgs alerts;              // --alert-rules, --no-alerts, --notify, --notify-config
  AttributionArgs attribution;   // issue 15: container, pod, Slurm job of each process
  bool attribution_labels = false;  // pod, namespace, container, hpc_job on /metrics
  push::PushArgs push;         // issue 29: --remote-write URL, --remote-write-config FILE
  bool no_host = false;        // issue 25: no host signals (gpuwatch_host_*, /api/v1/host)
  EnergyArgs energy;           // issue 29: /api/v1/energy's cost and CO2 (--price-per-kwh, --pue, ...)
};

// Blocks SIGINT/SIGTERM in this thread and every thread started after; returns the set.
sigset_t block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

int run_serve(const ServeArgs& args, const GlobalOptions& global) {
  auto address = exporter::parse_listen_address(args.listen);
  if (!address) return command_error("serve", "--listen: " + address.error().message, kExitUsage);
  std::shared_ptr<const exporter::WebConfig> web_config;
  if (!args.web_config_file.empty()) {  // read and checked (certificates included) before anything starts
    auto loaded = exporter::load_web_config(args.web_config_file);
    if (!loaded) return command_error("serve", "--web-config-file: " + loaded.error().message, kExitUsage);
    if (loaded->tls) {
      if (auto tls = exporter::check_tls_config(*loaded->tls); !tls)
        return command_error("serve", "--web-config-file: " + loaded->source + ": tls_server_config: " + tls.error().message, kExitUsage);
    }
    web_config = std::make_shared<const exporter::WebConfig>(std::move(*loaded));
  }
  const bool authenticated = web_config && web_config->requires_authentication();
  if (!exporter::is_loopback_host(address->host) && !args.insecure && !authenticated) {
    return command_error("serve", fmt::format("refusing to listen on {} without authentication: anyone who can reach it could read "
                            "your GPU and process data. Listen on 127.0.0.1, set basic_auth_users (or "
                            "client_auth_type: RequireAndVerifyClientCert) in a --web-config-file, or pass "
                            "--insecure-allow-unauthenticated if a firewall or proxy protects it",
                            args.listen),
                kExitUsage);
  }
  auto interval = core::parse_duration(args.interval);
  if (!interval) return command_error("serve", "--interval: " + interval.error().message, kExitUsage);
  std::chrono::milliseconds stale_after{0};
  if (!args.stale_after.empty()) {
    auto parsed = core::parse_duration(args.stale_after);
    if (!parsed) return command_error("serve", "--stale-after: " + parsed.error().message, kExitUsage);
    stale_after = *parsed;
  }
  if (args.threads == 0 || args.threads > 256) return command_error("serve", "--threads takes 1 to 256", kExitUsage);
  if (args.max_connections == 0 || args.max_connections > 1'000'000)
    return command_error("serve", "--max-connections takes 1 to 1000000", kExitUsage);
  if (args.max_event_streams == 0 || args.max_event_streams > args.max_connections)
    return command_error("serve", "--max-event-streams takes 1 to --max-connections", kExitUsage);
  auto header_timeout = core::parse_duration(args.header_timeout);
  if (!header_timeout || header_timeout->count() <= 0)
    return command_error("serve", "--header-timeout: " + (header_timeout ? std::string("must be positive") : header_timeout.error().message), kExitUsage);
  auto keep_alive_timeout = core::parse_duration(args.keep_alive_timeout);
  if (!keep_alive_timeout || keep_alive_timeout->count() <= 0)
    return command_error("serve", "--keep-alive-timeout: " + (keep_alive_timeout ? std::string("must be positive") : keep_alive_timeout.error().message),
                kExitUsage);
  auto history = core::parse_duration(args.history);
  if (!history) return command_error("serve", "--history: " + history.error().message, kExitUsage);
  const auto history_samples = static_cast<std::size_t>((*history + *interval - std::chrono::milliseconds(1)) / *interval);
  if (history_samples > 100'000) return command_error("serve", "--history: at most 100000 samples per GPU (--history / --interval)", kExitUsage);
  bool compat_dcgm = false;
  bool compat_nvidia_smi = false;
  for (std::size_t start = 0; start < args.compat.size();) {
    std::size_t comma = std::min(args.compat.find(',', start), args.compat.size());
    std::string family = args.compat.substr(start, comma - start);
    if (family == "dcgm") compat_dcgm = true;
    else if (family == "nvidia-smi") compat_nvidia_smi = true;
    else if (!family.empty()) {
      return command_error("serve", "--metrics-compat: unknown family '" + family + "' (known: dcgm, nvidia-smi)", kExitUsage);
    }
    start = comma + 1;
  }
  std::optional<alert_runtime::PreparedAlerts> alert_setup;  // checked before anything starts (exit 2)
  if (!args.alerts.no_alerts) {
    auto prepared = alert_runtime::prepare_alerts({args.alerts.rules_file, args.alerts.notify, args.alerts.notify_config});
    if (!prepared) return command_error("serve", prepared.error().message, kExitUsage);
    alert_setup = std::move(*prepared);
  } else if (!args.alerts.notify.empty() || !args.alerts.notify_config.empty() || !args.alerts.rules_file.empty()) {
    return command_error("serve", "--no-alerts turns alerts off: drop --alert-rules, --notify and --notify-config, or --no-alerts", kExitUsage);
  }
  auto energy_rates = cli::energy_rates(args.energy);  // issue 29: checked before anything starts (exit 2)
  if (!energy_rates) return command_error("serve", energy_rates.error().message, kExitUsage);
  const std::string hostname = host::host_name();  // dcgm-exporter's Hostname label, the alerts' host
  auto recorder = recorder::open_live_recorder(args.storage, args.no_record, *interval);
  if (!recorder) return command_error("serve", recorder.error().message, recorder.error().code);

  const backend::OpenOptions opened_with = open_options(global);  // the host signals read the same root
  auto backends = open_backends_for_command(global, opened_with);
  if (!backends) return kExitNvmlUnavailable;

  sigset_t stop_signals = block_stop_signals();  // before any thread starts

  live::LiveSessionOptions session_options;
  live::CollectorOptions& collector_options = session_options.sampling;
  collector_options.interval = *interval;
  collector_options.stale_after = stale_after;
  collector_options.processes = args.per_process;
  collector_options.user_of = [](std::uint32_t pid) { return host::read_process_info(pid).user; };
  collector_options.process_info_of = [](std::uint32_t pid) { return host::read_process_info(pid); };  // dashboard
  collector_options.history = std::make_shared<live::SampleHistory>(history_samples);
  collector_options.fields = exporter::collected_fields(compat_nvidia_smi);  // nvidia-smi's extra fields only when asked for
  collector_options.xid_events = true;                      // Xid counters (every family has them)
  // issue 25: the host (CPU, pressure, memory, disks, network, InfiniBand, the GPU processes' trees)
  // on the collector's host thread, under the backends' host root (GPUWATCH_HOST_ROOT on the simulator).
  collector_options.host.enabled = !args.no_host;
  collector_options.host.root = opened_with.host_root;
  collector_options.host.simulated_tree = opened_with.simulated_tree;
  // Live findings (gpuwatch_finding, /api/v1/snapshot), and the local alert engine evaluated on
  // the diagnosis thread after every tick (never on a sampling thread), its state in the history
  // database, notifications on their own threads.
  session_options.diagnosis = live::DiagnosisMode::Background;
  session_options.log = [](const std::string& line) { fmt::print(stderr, "gpuwatch serve: {}\n", line); };
  session_options.host = hostname;
  session_options.time_scale = backends->sim_time_scale().value_or(1.0);
  session_options.alerts = std::move(alert_setup);
  if (*recorder) {  // the same samples go to the database; a restart during trouble shows the ongoing problems at once
    session_options.recorder = *recorder;
    if (!args.no_host) {  // issue 25: each recorded tick with the nearest host sample (store/host_history.hpp)
      collector_options.on_host_sample = [r = *recorder](const std::shared_ptr<const host_signals::HostSample>& sample) {
        r->push_host(sample);
      };
    }
    session_options.prime_from = (*recorder)->path();
    session_options.tell_priming = true;
    session_options.alerts_db = (*recorder)->path();
    collector_options.extra_fields = recorder::recorded_fields();
  }
  collector_options.extra_fields = diagnose::with_input_fields(std::move(collector_options.extra_fields));
  if (!args.attribution.off) {  // issue 15: its own thread asks the APIs; samples never wait for them
    collector_options.attributor = std::make_shared<attribution::Attributor>(
        attributor_options(args.attribution, std::chrono::milliseconds(2000)));
    collector_options.attributor->start();
    if (*recorder) (*recorder)->set_attributor(collector_options.attributor);  // owners into the history too
  }
  auto history_ring = collector_options.history;
  auto session = live::LiveSession::open(*backends, std::move(session_options));
  if (!session) return command_error("serve", session.error().message, kExitRuntimeError);
  const live::Collector& collector = (*session)->collector();
  const bool alerts_on = (*session)->alert_board() != nullptr;

  exporter::ServerOptions server_options;
  server_options.threads = args.threads;
  server_options.limits.max_connections = args.max_connections;
  server_options.limits.header_deadline = *header_timeout;
  server_options.limits.idle_timeout = *keep_alive_timeout;
  server_options.api.max_event_streams = args.max_event_streams;
  server_options.encode.per_process = args.per_process;
  server_options.encode.version = GPUWATCH_VERSION;
  server_options.encode.compat_dcgm = compat_dcgm;
  server_options.encode.compat_nvidia_smi = compat_nvidia_smi;
  server_options.encode.hostname = hostname;
  server_options.encode.attribution_labels = args.attribution_labels && !args.attribution.off;
  server_options.api.history = history_ring;
  server_options.api.interval = *interval;
  // A long history read is cut short when serve stops, so that SIGTERM exits within 2 s.
  auto stopping = std::make_shared<std::atomic<bool>>(false);
  if (*recorder) {
    server_options.api.stored_history = recorder::make_store_history_reader((*recorder)->path(), std::chrono::seconds(4), stopping);
    server_options.api.recorded_findings = recorder::make_store_findings_reader((*recorder)->path(), std::chrono::seconds(10), stopping);
    server_options.api.jobs = recorder::make_store_jobs_reader((*recorder)->path(), std::chrono::seconds(4), stopping);
  }
  server_options.api.energy_rates = std::move(*energy_rates);
  server_options.web = web_config;
  auto pusher = push::start_collector_pusher(args.push, collector, server_options.encode, hostname, *recorder ? (*recorder)->path() : "",
                                         *interval, [](const std::string& line) { fmt::print(stderr, "gpuwatch serve: {}\n", line); });
  if (!pusher) return command_error("serve", pusher.error().message, kExitUsage);
  if (*pusher) server_options.append_metrics = [p = pusher->get()](std::string& out) { p->append_metrics(out); };
  if (alerts_on) server_options.api.alerts = (*session)->alert_board();
  exporter::MetricsServer server(collector, server_options);
  auto port = server.bind(*address);
  if (!port) return command_error("serve", port.error().message, kExitRuntimeError);

  (*session)->start();  // the recorder's thread, then the sampling threads
  std::atomic<bool> http_done{false};
  std::thread http([&server, &http_done] {
    server.run();
    http_done = true;
  });
  // Wait until the server runs, so that a stop signal right after the address is printed
  // cannot miss it.
  for (int i = 0; i < 500 && !server.is_running() && !http_done; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::string host = address->host.find(':') != std::string::npos ? "[" + address->host + "]" : address->host;
  fmt::print("gpuwatch serve: listening on {}://{}:{}/metrics ({} GPUs, every {} ms, stale after {} ms)\n",
             server.uses_tls() ? "https" : "http", host, *port, collector.gpu_count(), interval->count(), collector.stale_after().count());
  fmt::print("gpuwatch serve: dashboard: {}://{}:{}/\n", server.uses_tls() ? "https" : "http", host, *port);
  std::fflush(stdout);
  if (*recorder) fmt::print(stderr, "gpuwatch serve: recording history to {}\n", (*recorder)->path());
  if (alerts_on) fmt::print(stderr, "gpuwatch serve: alerts: {}\n", (*session)->alerts_summary());

  // systemd Type=notify: READY=1 once every GPU has a sample (what /readyz answers).
  const service::ServiceNotifier service(std::getenv("NOTIFY_SOCKET"));
  // systemd's watchdog (WatchdogSec=): WATCHDOG=1 every WATCHDOG_USEC/2 while serve is
  // healthy: the HTTP server runs and the collector's lock can be taken (every scrape
  // needs it; were it wedged, the call below blocks and the pings stop). A GPU whose
  // NVML call hangs does not stop them: it is reported stale (gpuwatch_up 0), which a
  // restart would lose without unsticking the driver.
  service::WatchdogPinger watchdog(service,
                          service::watchdog_ping_interval(std::getenv("WATCHDOG_USEC"), std::getenv("WATCHDOG_PID"), ::getpid()));
  auto serving_healthy = [&] {
    if (http_done || !server.is_running()) return false;
    static_cast<void>(collector.gpu_count());  // takes the collector's lock
    return true;
  };
  std::chrono::nanoseconds slice_length = std::chrono::milliseconds(200);
  if (watchdog.enabled()) {  // wake at least twice per ping interval
    slice_length = std::clamp<std::chrono::nanoseconds>(*watchdog.interval() / 2, std::chrono::milliseconds(1), slice_length);
  }
  bool ready_notified = false;
  int exit_code = kExitOk;
  for (;;) {
    if (!ready_notified && collector.ready()) {
      service.notify(fmt::format("READY=1\nSTATUS=serving {} GPUs on {}:{}", collector.gpu_count(), host, *port));
      ready_notified = true;
    }
    if (watchdog.enabled()) watchdog.tick(serving_healthy(), service::WatchdogPinger::Clock::now());
    (*session)->record_xid_counts();  // Xids into the history (store/xid_log.hpp): the recorder's thread writes the new ones
    timespec slice{0, static_cast<long>(slice_length.count())};
    if (sigtimedwait(&stop_signals, nullptr, &slice) > 0) break;
    if (http_done) {  // the server stopped by itself: the socket failed
      fmt::print(stderr, "gpuwatch serve: the HTTP server stopped unexpectedly\n");
      exit_code = kExitRuntimeError;
      break;
    }
  }
  service.notify("STOPPING=1");
  *stopping = true;
  server.stop();
  http.join();
  if (*pusher) (*pusher)->stop();  // what is unsent stays in its buffer for the next start
  // The sampling and diagnosis threads (alerts) too; then the alert engine (what is unsent stays
  // queued) and the recorder (the last batch is written).
  const bool collector_stopped = (*session)->stop(std::chrono::seconds(2));
  if (!collector_stopped) {
    // A sampling thread is stuck inside NVML: unloading the library under it would crash.
    fmt::print(stderr, "gpuwatch serve: an NVML call is still hanging; exiting without waiting for it\n");
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(exit_code);
  }
  return exit_code;
}

}  // namespace

Command add_serve_command(CLI::App& app) {
  auto args = std::make_shared<ServeArgs>();
  Command command;
  command.app = app.add_subcommand("serve", "Serve the live dashboard at / (http://127.0.0.1:9835/), Prometheus "
                                            "metrics (/metrics, /healthz, /readyz) and the JSON API until SIGINT/SIGTERM");
  auto* c = command.app;
  c->add_option("--listen", args->listen,
                "Address to listen on, HOST:PORT or [IPv6]:PORT; port 0 picks a free one (printed) "
                "[default: 127.0.0.1:9835]");
  c->add_option("--interval", args->interval, "Time between samples of each GPU, e.g. 500ms, 1s [default: 1s]");
  c->add_option("--stale-after", args->stale_after,
                "A GPU whose latest sample is older than this (an NVML call hangs) is reported down "
                "[default: 3 intervals + 2s]");
  c->add_flag("--per-process-metrics", args->per_process,
              "Also export per-process series (pid, process name, user, GPU memory, SM utilization)");
  c->add_flag("--insecure-allow-unauthenticated", args->insecure,
              "Allow listening on a non-loopback address without authentication");
  c->add_option("--remote-write", args->push.url,
                 "Also push the /metrics series to this Prometheus remote-write URL (e.g. http://prometheus:9090/api/v1/write)");
  c->add_option("--remote-write-config", args->push.config_file,
                "YAML file: external_labels, basic_auth, bearer_token_file, tls_config, buffer (docs/push.md)");
  c->add_option("--web-config-file", args->web_config_file,
                "TLS and basic-auth configuration, in the Prometheus exporter-toolkit web config format "
                "(tls_server_config, basic_auth_users with bcrypt hashes, http_server_config.headers); "
                "with users (or verified client certificates) a non-loopback --listen is allowed");
  c->add_option("--threads", args->threads,
                "Threads for slow HTTP requests (/api/v1/history from the database, a first bcrypt); "
                "connections never take one: one event-driven thread serves them all [default: 2]");
  c->add_option("--max-connections", args->max_connections,
                "Open HTTP connections at most; beyond, the one idle or in its headers longest is closed, "
                "or the new one gets 503 [default: 512]");
  c->add_option("--max-event-streams", args->max_event_streams,
                "Concurrent /api/v1/events streams at most; beyond, 503 [default: 64]");
  c->add_option("--header-timeout", args->header_timeout,
                "Total time a client has to send a request's line and headers, e.g. 10s [default: 10s]");
  c->add_option("--keep-alive-timeout", args->keep_alive_timeout,
                "How long an idle kept-alive connection waits for its next request [default: 5s]");
  c->add_option("--history", args->history,
                "How much recent history /api/v1/history keeps in memory per GPU, e.g. 10m, 1h; longer "
                "requests are answered from the --db history [default: 10m]");
  add_storage_options(*c, args->storage,
                      "Record the history into this database, as `gpuwatch record` does [default: as record: "
                      "$STATE_DIRECTORY/history.db under systemd, else $XDG_STATE_HOME/gpuwatch/history.db, else "
                      "~/.local/state/gpuwatch/history.db; if the default cannot be written, serve warns and "
                      "serves without recording]");
  c->add_flag("--no-record", args->no_record, "Do not record the history (serve only)");
  c->add_flag("--no-host", args->no_host,
              "Do not sample the host's CPU, memory, disks and network (no gpuwatch_host_* series, "
              "/api/v1/host answers null)");
  add_alert_options(*c, args->alerts);
  c->add_option("--metrics-compat", args->compat,
                "Also export another exporter's metric names so its dashboards work: dcgm (dcgm-exporter's "
                "DCGM_FI_* names and labels), nvidia-smi (nvidia_gpu_exporter's nvidia_smi_* names); "
                "both: dcgm,nvidia-smi");
  c->add_flag("--attribution-labels", args->attribution_labels,
              "Add dcgm-exporter's pod, namespace, container and hpc_job labels to every per-GPU series "
              "(off by default: they multiply series as jobs come and go)");
  add_attribution_options(*c, args->attribution);
  add_energy_options(*c, args->energy, "the dashboard's");  // issue 29: /api/v1/energy
  c->footer("Examples:\n"
            "  gpuwatch serve                           dashboard at http://127.0.0.1:9835/, metrics at /metrics\n"
            "  gpuwatch serve --metrics-compat dcgm,nvidia-smi   existing Grafana dashboards keep working\n"
            "  gpuwatch serve --notify slack=https://hooks.slack.com/services/...   alerts to Slack, no Prometheus needed\n"
            "  gpuwatch --simulate demo serve --no-record        the dashboard on the simulated demo node");
  command.run = [args](const GlobalOptions& global) { return run_serve(*args, global); };
  return command;
}

}  // namespace gpuwatch::cli
