// `gpuwatch record`: samples every --interval and keeps the history in SQLite
// (store/), flushing one batch every --flush-interval. SIGINT/SIGTERM stop it after
// a last flush; the handler only sets a flag.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fmt/core.h>
#include <memory>
#include <optional>
#include <vector>

#include "alert_runtime/live_alerts.hpp"
#include "cli/alert_options.hpp"
#include "cli/attribution_options.hpp"
#include "cli/command.hpp"
#include "cli/command_error.hpp"
#include "cli/exit_codes.hpp"
#include "diagnose/input_fields.hpp"
#include "cli/storage_options.hpp"
#include "history/lost_monitors.hpp"
#include "history/render.hpp"
#include "host/host_name.hpp"
#include "query/options.hpp"
#include "recorder/log_writer.hpp"
#include "store/database_path.hpp"
#include "recorder/size.hpp"
#include "recorder/storage.hpp"
#include "core/time_spec.hpp"
#include "cli/open_backends.hpp"
#include "sampler/sampler.hpp"
#include "live/live_session.hpp"
#include "recorder/host_queue.hpp"
#include "recorder/record_loop.hpp"
#include "push/collector_pusher.hpp"
#include "backend/abandoned_calls.hpp"
#include "recorder/sample_queue.hpp"
#include "store/history_columns.hpp"

namespace gpuwatch::cli {
namespace {

volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal_number) { g_stop_signal = signal_number; }

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a sleep is cut short by the signal
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

struct RecordArgs {
  recorder::StorageArgs storage;  // --db, --flush-interval, --retain-*, --max-size (shared with serve)
  std::string interval = "1s", csv, jsonl, fields;
  long count = 0;
  std::string rotate_size, rotate_age;
  int keep = 5;
  AlertArgs alerts;  // --alert-rules, --no-alerts, --notify, --notify-config
  AttributionArgs attribution;  // issue 15: the owner of each process, kept in the history
  push::PushArgs push;          // issue 29: --remote-write URL, --remote-write-config FILE
  bool no_host = false;         // issue 25: no host signals beside the GPUs
};

// What to write where, from the command line (validated before anything is opened).
struct RecordPlan {
  std::string db_path;  // empty: no database (--csv/--jsonl alone)
  std::chrono::milliseconds interval{1000};
  recorder::StoragePlan storage;  // flush interval and retention
  std::vector<core::FieldId> log_fields;
  sampler::SampleOptions sample_options;
  recorder::RotateOptions rotate;
};

core::Result<void> parse_storage_options(const RecordArgs& args, RecordPlan& plan) {
  auto storage = recorder::parse_storage_args(args.storage);
  if (!storage) return storage.error();
  plan.storage = *storage;
  if (!args.rotate_size.empty()) {
    auto size = recorder::parse_byte_size(args.rotate_size);
    if (!size) return core::make_error("--rotate-size: " + size.error().message);
    plan.rotate.max_bytes = *size;
  }
  if (!args.rotate_age.empty()) {
    auto age = core::parse_duration(args.rotate_age);
    if (!age) return core::make_error("--rotate-age: " + age.error().message);
    plan.rotate.max_age = *age;
  }
  if (args.keep < 0) return core::make_error("--keep takes 0 or more");
  plan.rotate.keep = args.keep;
  if (plan.rotate.enabled() && args.csv.empty() && args.jsonl.empty()) {
    return core::make_error("--rotate-size / --rotate-age rotate the --csv / --jsonl logs: give one");
  }
  return {};
}

core::Result<RecordPlan> make_plan(const RecordArgs& args) {
  RecordPlan plan;
  auto interval = core::parse_duration(args.interval);
  if (!interval) return core::make_error("--interval: " + interval.error().message);
  if (args.count < 0) return core::make_error("--count takes a positive number");
  plan.interval = *interval;
  if (auto storage = parse_storage_options(args, plan); !storage) return storage.error();
  const bool logs_only = args.storage.db.empty() && (!args.csv.empty() || !args.jsonl.empty());
  if (!logs_only) {
    plan.db_path = args.storage.db.empty() ? store::default_database_path() : args.storage.db;
    if (plan.db_path.empty()) return core::make_error(store::no_default_database_message());
  }
  auto fields = args.fields.empty() ? history::parse_history_fields("", history::HistoryFormat::Csv) : query::parse_gpu_fields(args.fields);
  if (!fields) return core::make_error("--fields: " + fields.error().message);
  plan.log_fields = *fields;

  auto& wanted = plan.sample_options.fields;
  wanted = recorder::recorded_fields();
  for (auto f : plan.log_fields) {
    if (std::find(wanted.begin(), wanted.end(), f) == wanted.end()) wanted.push_back(f);
  }
  wanted = diagnose::with_input_fields(std::move(wanted));  // findings are evaluated live (issue 10)
  plan.sample_options.processes = true;                     // the process kinds of the diagnosis need them
  return plan;
}

int run_record(const RecordArgs& args, const GlobalOptions& global) {
  auto plan = make_plan(args);
  if (!plan) return command_error("record", plan.error().message, kExitUsage);
  std::optional<alert_runtime::PreparedAlerts> alert_setup;  // checked before anything starts (exit 2)
  if (!args.alerts.no_alerts) {
    auto prepared = alert_runtime::prepare_alerts({args.alerts.rules_file, args.alerts.notify, args.alerts.notify_config});
    if (!prepared) return command_error("record", prepared.error().message, kExitUsage);
    alert_setup = std::move(*prepared);
  } else if (!args.alerts.notify.empty() || !args.alerts.notify_config.empty() || !args.alerts.rules_file.empty()) {
    return command_error("record", "--no-alerts turns alerts off: drop --alert-rules, --notify and --notify-config, or --no-alerts", kExitUsage);
  }

  std::unique_ptr<store::HistoryDatabase> db;
  if (!plan->db_path.empty()) {
    if (auto ready = store::prepare_database_directory(plan->db_path); !ready) return command_error("record", ready.error().message, kExitRuntimeError);
    auto opened = store::HistoryDatabase::open(plan->db_path);
    if (!opened) return command_error("record", opened.error().message, kExitRuntimeError);
    db = std::move(*opened);
    // A job whose `gpuwatch run` died runs on unrecorded: said once (issue 31).
    for (const auto& line : history::notice_lost_monitors(*db)) fmt::print(stderr, "gpuwatch record: {}\n", line);
  }
  std::vector<std::unique_ptr<recorder::SampleLog>> logs;
  for (auto [path, format] : {std::pair{args.csv, history::HistoryFormat::Csv}, std::pair{args.jsonl, history::HistoryFormat::Jsonl}}) {
    if (path.empty()) continue;
    auto log = recorder::SampleLog::open(path, format, plan->log_fields, plan->rotate);
    if (!log) return command_error("record", log.error().message, kExitRuntimeError);
    logs.push_back(std::move(*log));
  }
  const backend::OpenOptions opened_with = open_options(global);  // the host signals read the same root
  auto backends = open_backends_for_command(global, opened_with);
  if (!backends) return kExitNvmlUnavailable;

  // The live session (live/live_session.hpp): one sampling thread per GPU, as serve samples, so a
  // hung NVML call on one GPU never stops the others' rows, nor SIGTERM (issue 16); their samples
  // go to a queue the record loop (recorder/record_loop.hpp) groups back into one snapshot per
  // tick, which the session diagnoses (continuing from the history this database already holds,
  // issue 23) and evaluates the local alert engine on; notifications leave on their own threads.
  const std::string host = host::host_name();
  // Shared with the sampling threads: one left behind in a hung call may still push after this returns.
  auto queue = std::make_shared<recorder::SampleQueue>();
  live::LiveSessionOptions session_options;
  session_options.sampling.interval = plan->interval;
  session_options.sampling.fields = plan->sample_options.fields;
  session_options.sampling.catch_up = true;  // one sample per GPU per tick, even on a loaded machine
  // issue 25: the host beside the GPUs, sampled on the collector's host thread under the backends'
  // host root; each tick is diagnosed and written with the nearest host sample (host_samples).
  auto host_samples = args.no_host ? nullptr : std::make_shared<recorder::HostQueue>();
  session_options.sampling.host.enabled = !args.no_host;
  session_options.sampling.host.root = opened_with.host_root;
  session_options.sampling.host.simulated_tree = opened_with.simulated_tree;
  if (host_samples) {
    session_options.sampling.on_host_sample = [host_samples](const std::shared_ptr<const host_signals::HostSample>& sample) {
      host_samples->push(sample);
    };
  }
  session_options.sampling.xid_events = db != nullptr;  // Xids into the history (store/xid_log.hpp)
  session_options.sampling.on_sample = [queue](const core::DeviceSnapshot& device, std::chrono::system_clock::time_point started) {
    queue->push(device, started);
  };
  session_options.diagnosis = live::DiagnosisMode::WholeTicks;
  session_options.prime_from = plan->db_path;
  session_options.tell_priming = true;
  session_options.alerts = std::move(alert_setup);
  session_options.alerts_db = plan->db_path;
  session_options.host = host;
  session_options.time_scale = backends->sim_time_scale().value_or(1.0);
  session_options.tell_alerts = true;
  session_options.log = [](const std::string& line) { fmt::print(stderr, "gpuwatch record: {}\n", line); };
  auto session = live::LiveSession::open(*backends, std::move(session_options));
  if (!session) return command_error("record", session.error().message, kExitRuntimeError);

  install_stop_handlers();
  std::optional<recorder::DatabaseRecorder> recorder;
  if (db) recorder.emplace(*db, plan->storage, "record");
  recorder::announce_ongoing_findings((*session)->findings());
  if (recorder) recorder->maintain(true);

  // Who owns each process (issue 15), kept as spans beside the samples; its own thread asks
  // the APIs, so a tick never waits on them.
  std::unique_ptr<attribution::Attributor> attributor;
  if (db && !args.attribution.off) {
    attributor = std::make_unique<attribution::Attributor>(attributor_options(args.attribution, std::chrono::milliseconds(2000)));
    attributor->start();
  }
  (*session)->start();
  const live::Collector& collector = (*session)->collector();
  exporter::EncodeOptions push_encode;  // record has no /metrics: the native families of serve's
  push_encode.hostname = host;
  auto pusher = push::start_collector_pusher(args.push, collector, push_encode, host, plan->db_path, plan->interval,
                                             [](const std::string& line) { fmt::print(stderr, "gpuwatch record: {}\n", line); });
  if (!pusher) {
    (*session)->stop(std::chrono::seconds(1));
    return command_error("record", pusher.error().message, kExitUsage);
  }
  const unsigned gpu_count = collector.gpu_count();
  if (gpu_count == 0) {
    (*session)->stop(std::chrono::seconds(1));
    return command_error("record", "NVML works but reports no GPU", kExitNoDevices);
  }
  {
    std::string where = plan->db_path;
    for (const auto& log : logs) where += (where.empty() ? "" : ", ") + log->path();
    fmt::print(stderr, "gpuwatch record: {} GPU(s) every {} to {} (flush every {}); Ctrl-C stops\n", gpu_count,
               args.interval, where, args.storage.flush_interval);
    if (db && args.storage.db.empty()) {  // simulated data never goes into the real history
      if (auto note = store::simulated_default_note(); !note.empty()) fmt::print(stderr, "gpuwatch record: {}\n", note);
    }
  }
  recorder::RecordOutputs outputs{db.get(), recorder ? &*recorder : nullptr, &logs, attributor.get()};
  recorder::RecordLoop loop(**session, *queue, outputs, plan->interval, args.count, g_stop_signal);
  loop.attach_host(host_samples);
  loop.run();
  if (*pusher) (*pusher)->stop();  // what is unsent stays in its buffer for the next start
  // A thread still inside a hung NVML call is left behind (the process then ends with _Exit).
  if (!(*session)->stop_sampling(std::chrono::seconds(1))) {
    fmt::print(stderr, "gpuwatch record: an NVML call is still hanging; exiting without waiting for it\n");
    backend::note_abandoned_call();
  }
  if (g_stop_signal != 0) loop.drain();  // what was sampled before the signal is kept
  (*session)->stop(std::chrono::seconds(1));  // the alert engine: notifications in flight are cut short and stay queued
  if (recorder) recorder->flush();
  if (recorder && recorder->dropped_rows() > 0) {
    fmt::print(stderr, "gpuwatch record: {} rows were dropped while the database could not be written\n",
               recorder->dropped_rows());
  }
  if (recorder && recorder->failing()) {
    return command_error("record", "the last batch could not be written to " + plan->db_path, kExitRuntimeError);
  }
  fmt::print(stderr, "gpuwatch record: {} samples{}{}\n", loop.samples(),
             plan->db_path.empty() ? ""
                                   : fmt::format(", {} rows written to {}", recorder->written_rows(), plan->db_path),
             g_stop_signal != 0 ? fmt::format(" (stopped by signal {})", static_cast<int>(g_stop_signal)) : "");
  return kExitOk;
}

}  // namespace

Command add_record_command(CLI::App& app) {
  auto args = std::make_shared<RecordArgs>();
  Command command;
  command.app = app.add_subcommand("record", "Record GPU and process samples into the history database (SQLite) "
                                             "until stopped; read it back with `gpuwatch history`");
  auto* c = command.app;
  add_storage_options(*c, args->storage,
                      "History database [default: $STATE_DIRECTORY/history.db under systemd, else "
                      "$XDG_STATE_HOME/gpuwatch/history.db, else ~/.local/state/gpuwatch/history.db]");
  c->add_option("--interval", args->interval, "Time between samples: 2 (seconds), 500ms, 1m [default: 1s]");
  c->add_option("-c,--count", args->count, "Stop after N samples (0: until SIGINT/SIGTERM)");
  c->add_option("--csv", args->csv,
                "Also log to this CSV file (header line, ISO-8601 times, one row per GPU per sample); "
                "without --db, only the log is written");
  c->add_option("--jsonl", args->jsonl, "Also log to this JSONL file (one object per GPU per sample); as --csv");
  c->add_option("--fields", args->fields,
                "Fields of the --csv/--jsonl logs, names as `query --query-gpu` [default: every recorded field]");
  c->add_option("--rotate-size", args->rotate_size,
                "Start a new --csv/--jsonl file before one would grow past this size (e.g. 100M)");
  c->add_option("--rotate-age", args->rotate_age, "Start a new --csv/--jsonl file when its first row is this old (e.g. 1d)");
  c->add_option("--keep", args->keep, "Rotated log files kept (FILE.1 newest .. FILE.N) [default: 5]");
  add_alert_options(*c, args->alerts);
  add_attribution_options(*c, args->attribution);
  c->add_flag("--no-host", args->no_host,
              "Do not sample the host's CPU, memory, disks and network beside the GPUs (no host rows in the history)");
  c->add_option("--remote-write", args->push.url,
                "Also push the samples to this Prometheus remote-write URL (e.g. http://prometheus:9090/api/v1/write)");
  c->add_option("--remote-write-config", args->push.config_file,
                "YAML file: external_labels, basic_auth, bearer_token_file, tls_config, buffer (docs/push.md)");
  c->footer("Examples:\n"
            "  gpuwatch record --interval 5s            every 5 seconds into the default database\n"
            "  gpuwatch record --db h.db -c 60          60 samples into h.db, then stop\n"
            "  gpuwatch record --csv gpu.csv --fields index,utilization.gpu,memory.used --rotate-size 100M");
  command.run = [args](const GlobalOptions& global) { return run_record(*args, global); };
  return command;
}

}  // namespace gpuwatch::cli
