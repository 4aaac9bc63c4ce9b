// `gpuwatch record`: samples every --interval and keeps the history in SQLite
// (store/), flushing one batch every --flush-interval. SIGINT/SIGTERM stop it after
// a last flush; the handler only sets a flag.
#include <CLI/CLI.hpp>
#include <time.h>

#include <algorithm>
#include <iterator>
#include <csignal>
#include <cstdio>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <memory>
#include <optional>
#include <vector>

#include "alert_runtime/live_alerts.hpp"
#include "attribution/snapshot_processes.hpp"
#include "alert_runtime/sample_tick.hpp"
#include "cli/alert_options.hpp"
#include "cli/attribution_options.hpp"
#include "cli/command.hpp"
#include "cli/command_error.hpp"
#include "cli/exit_codes.hpp"
#include "diagnose/diagnoser.hpp"
#include "diagnose/finding_changes.hpp"
#include "diagnose/input_fields.hpp"
#include "cli/storage_options.hpp"
#include "history/live_priming.hpp"
#include "history/lost_monitors.hpp"
#include "history/render.hpp"
#include "host/host_name.hpp"
#include "query/options.hpp"
#include "recorder/log_writer.hpp"
#include "store/database_path.hpp"
#include "recorder/size.hpp"
#include "recorder/storage.hpp"
#include "core/time_spec.hpp"
#include "cli/open_nvml.hpp"
#include "sampler/gpu_identities.hpp"
#include "sampler/gpu_selection.hpp"
#include "sampler/ticker.hpp"
#include "sampler/sampler.hpp"
#include "live/collector.hpp"
#include "push/collector_pusher.hpp"
#include "nvml/abandoned_calls.hpp"
#include "recorder/sample_queue.hpp"
#include "recorder/xid_rows.hpp"
#include "store/xid_log.hpp"
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

// Sleeps until DEADLINE in short slices; false when a stop signal came first.
bool sleep_until(std::chrono::steady_clock::time_point deadline) {
  while (g_stop_signal == 0) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return true;
    auto slice = std::min<std::chrono::steady_clock::duration>(left, std::chrono::milliseconds(100));
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(slice).count();
    timespec ts{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    nanosleep(&ts, nullptr);
  }
  return false;
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

// Live diagnosis, incremental: each sample is observed once; a finding is told on stderr when
// it starts (or gets worse) and when it ends, so a recorder's log says when the trouble was.
void announce_findings(diagnose::Diagnoser& diagnoser, const core::Snapshot& snapshot,
                       std::vector<diagnose::Finding>& active) {
  diagnoser.observe(snapshot);
  auto now = diagnoser.findings();
  auto changes = diagnose::finding_changes(active, now);
  for (const auto& f : changes.started) {
    fmt::print(stderr, "gpuwatch record: finding: {} GPU {}: {} ({})\n", diagnose::to_string(f.severity),
               fmt::join(f.gpus, ","), f.summary, f.kind);
  }
  for (const auto& f : changes.ended) {
    fmt::print(stderr, "gpuwatch record: finding ended: GPU {}: {} ({})\n", fmt::join(f.gpus, ","), f.summary, f.kind);
  }
  active = std::move(now);
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
  auto library = open_nvml_for_command(global);
  if (!library) return kExitNvmlUnavailable;

  // The local alert engine, evaluated in this loop after each sample; notifications leave on
  // the dispatcher's own threads.
  const std::string host = host::host_name();
  std::unique_ptr<alert_runtime::LiveAlerts> live_alerts;
  if (alert_setup) {
    alert_runtime::LiveAlertsOptions alert_options;
    alert_options.db_path = plan->db_path;
    alert_options.host = host;
    alert_options.time_scale = library->sim_time_scale().value_or(1.0);
    alert_options.log = [](const std::string& line) { fmt::print(stderr, "gpuwatch record: {}\n", line); };
    auto started = alert_runtime::LiveAlerts::start(std::move(*alert_setup), alert_options);
    if (!started) return command_error("record", started.error().message, kExitRuntimeError);
    live_alerts = std::move(*started);
    fmt::print(stderr, "gpuwatch record: alerts: {}\n", live_alerts->summary());
  }

  install_stop_handlers();
  std::optional<recorder::DatabaseRecorder> recorder;
  if (db) recorder.emplace(*db, plan->storage, "record");
  long samples = 0;
  diagnose::Diagnoser diagnoser;
  if (db) {  // continuity (issue 23): the findings go on from the history this database already holds
    const auto priming = history::prime_diagnoser(*db, sampler::gpu_identities(library->api()),
                                                  std::chrono::system_clock::now(), diagnoser);
    if (auto line = history::describe_priming(priming, diagnoser); !line.empty()) fmt::print(stderr, "gpuwatch record: {}\n", line);
  }
  std::vector<diagnose::Finding> active = diagnoser.findings();  // ongoing: told once here, not as new
  for (const auto& f : active) {
    fmt::print(stderr, "gpuwatch record: finding (ongoing): {} GPU {}: {} ({})\n", diagnose::to_string(f.severity),
               fmt::join(f.gpus, ","), f.summary, f.kind);
  }
  std::vector<recorder::OutputHealth> log_health;
  for (const auto& log : logs) log_health.emplace_back("record", log->path());
  if (recorder) recorder->maintain(true);

  // One sampling thread per GPU, as serve samples (live/collector.hpp): a hung NVML call
  // on one GPU never stops the others' rows, nor SIGTERM (issue 16). Their samples are
  // grouped back into one snapshot per tick here.
  // Shared with the sampling threads: one left behind in a hung call may still push after this returns.
  auto queue = std::make_shared<recorder::SampleQueue>();
  live::CollectorOptions collector_options;
  collector_options.interval = plan->interval;
  collector_options.fields = plan->sample_options.fields;
  collector_options.catch_up = true;  // one sample per GPU per tick, even on a loaded machine
  collector_options.xid_events = db != nullptr;  // Xids into the history (store/xid_log.hpp)
  recorder::XidCountDiff xid_diff;
  std::vector<live::XidCount> xid_counts;
  collector_options.on_sample = [queue](const core::DeviceSnapshot& device, std::chrono::system_clock::time_point started) {
    queue->push(device, started);
  };
  live::Collector collector(library->api(), collector_options);
  // Who owns each process (issue 15), kept as spans beside the samples; its own thread asks
  // the APIs, so a tick never waits on them.
  std::unique_ptr<attribution::Attributor> attributor;
  if (db && !args.attribution.off) {
    attributor = std::make_unique<attribution::Attributor>(attributor_options(args.attribution, std::chrono::milliseconds(2000)));
    attributor->start();
  }
  collector.start();
  exporter::EncodeOptions push_encode;  // record has no /metrics: the native families of serve's
  push_encode.hostname = host;
  auto pusher = push::start_collector_pusher(args.push, collector, push_encode, host, plan->db_path, plan->interval,
                                             [](const std::string& line) { fmt::print(stderr, "gpuwatch record: {}\n", line); });
  if (!pusher) {
    collector.stop(std::chrono::seconds(1));
    return command_error("record", pusher.error().message, kExitUsage);
  }
  const unsigned gpu_count = collector.gpu_count();
  if (gpu_count == 0) {
    collector.stop(std::chrono::seconds(1));
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
  // --count N: N samples of each GPU (a GPU that stops answering is not waited for beyond the
  // collector's stale limit once the others have theirs).
  std::vector<long> per_gpu(gpu_count, 0);
  std::optional<std::chrono::steady_clock::time_point> first_done;
  std::size_t tick_size = 0;  // GPUs in the latest tick written (SIGTERM: drop a partial last one)
  auto take_tick = [&](core::Snapshot& snapshot) {
    if (args.count > 0) {
      std::erase_if(snapshot.devices, [&](const core::DeviceSnapshot& d) {
        return d.index < per_gpu.size() && per_gpu[d.index] >= args.count;
      });
      if (snapshot.devices.empty()) return;
      for (const auto& d : snapshot.devices) {
        if (d.index < per_gpu.size() && ++per_gpu[d.index] == args.count && !first_done) {
          first_done = std::chrono::steady_clock::now();
        }
      }
    }
    tick_size = snapshot.devices.size();
    snapshot.device_count = gpu_count;  // NVML's count, not how many answered this tick
    collector.with_view([&](const live::LiveView& view) {
      snapshot.driver_version = view.snapshot->driver_version;
      snapshot.cuda_driver_version = view.snapshot->cuda_driver_version;
      snapshot.error_strings = view.snapshot->error_strings;
      xid_counts = view.xid_events;
    });
    if (db) {  // outside the view's lock: a busy database must not hold up the collector
      if (auto written = store::write_xid_events(*db, xid_diff.new_events(xid_counts, snapshot)); !written) {
        fmt::print(stderr, "gpuwatch record: {}\n", written.error().message);
      }
    }
    ++samples;
    for (std::size_t i = 0; i < logs.size(); ++i) log_health[i].update(logs[i]->append(snapshot));
    announce_findings(diagnoser, snapshot, active);
    if (live_alerts) live_alerts->tick(alert_runtime::tick_from_snapshot(snapshot, active, host));
    if (recorder) {
      recorder->add(snapshot);
      if (attributor) recorder->add_owners(snapshot, attributor->attribute(attribution::gpu_processes(snapshot)));
      recorder->flush_if_due(std::chrono::steady_clock::now());
    }
  };
  auto wanted_more = [&] {
    if (args.count <= 0) return true;
    if (std::all_of(per_gpu.begin(), per_gpu.end(), [&](long n) { return n >= args.count; })) return false;
    return !first_done || std::chrono::steady_clock::now() - *first_done <= collector.stale_after();
  };
  // The GPUs of one tick start within milliseconds of each other: a sample is taken once it is
  // half an interval old, so that its tick is complete.
  const auto window = std::max<std::chrono::milliseconds>(plan->interval / 2, std::chrono::milliseconds(1));
  const auto wake_every = std::clamp<std::chrono::milliseconds>(plan->interval / 2, std::chrono::milliseconds(1),
                                                                 std::chrono::milliseconds(100));
  // A tick waits for every GPU that answers (one running late on a loaded machine catches up
  // within a second) before it is written, so each row set is whole; a GPU that has stopped
  // answering (stale: a hung call) is not waited for.
  auto answering = [&] {
    std::size_t n = 0;
    collector.with_view([&](const live::LiveView& view) {
      for (const auto& status : view.status) {
        n += status.has_sample && status.sample_age_seconds * 1000.0 <= static_cast<double>(collector.stale_after().count());
      }
    });
    return n;
  };
  constexpr auto kWaitForLateGpu = std::chrono::milliseconds(1500);
  while (g_stop_signal == 0 && wanted_more()) {
    if (!sleep_until(std::chrono::steady_clock::now() + wake_every)) break;
    const auto now = std::chrono::system_clock::now();
    auto ticks = queue->take(now - window, window);
    const std::size_t expected = answering();
    auto whole_or_old = [&](const core::Snapshot& t) { return t.devices.size() >= expected || now - t.timestamp > kWaitForLateGpu; };
    auto waiting = std::find_if_not(ticks.begin(), ticks.end(), whole_or_old);
    queue->put_back(std::vector<core::Snapshot>(std::make_move_iterator(waiting), std::make_move_iterator(ticks.end())));
    ticks.erase(waiting, ticks.end());
    for (auto& snapshot : ticks) {
      if (!wanted_more()) break;
      take_tick(snapshot);
    }
    if (recorder) recorder->flush_if_due(std::chrono::steady_clock::now());
  }
  if (*pusher) (*pusher)->stop();  // what is unsent stays in its buffer for the next start
  // A thread still inside a hung NVML call is left behind (the process then ends with _Exit).
  if (!collector.stop(std::chrono::seconds(1))) {
    fmt::print(stderr, "gpuwatch record: an NVML call is still hanging; exiting without waiting for it\n");
    nvml::note_abandoned_call();
  }
  if (g_stop_signal != 0) {  // what was sampled before the signal is kept
    auto last = queue->take(std::nullopt, window);
    // The signal may come between the GPUs' samples of one tick: that tick is dropped whole
    // rather than written for some GPUs only.
    if (!last.empty() && last.back().devices.size() < tick_size) last.pop_back();
    for (auto& snapshot : last) {
      if (!wanted_more()) break;
      take_tick(snapshot);
    }
  }
  if (live_alerts) live_alerts->stop();  // notifications in flight are cut short and stay queued
  if (recorder) recorder->flush();
  if (recorder && recorder->dropped_rows() > 0) {
    fmt::print(stderr, "gpuwatch record: {} rows were dropped while the database could not be written\n",
               recorder->dropped_rows());
  }
  if (recorder && recorder->failing()) {
    return command_error("record", "the last batch could not be written to " + plan->db_path, kExitRuntimeError);
  }
  fmt::print(stderr, "gpuwatch record: {} samples{}{}\n", samples,
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
