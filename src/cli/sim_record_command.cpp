// `gpuwatch sim record SCENARIO --duration 2h --interval 1s --db FILE`: a scenario's timeline
// rendered through the real sampler on the simulated driver's virtual clock into a history
// (and/or CSV/JSONL logs), in seconds. The samples end at the moment the command runs, so
// `diagnose --db FILE --since 2h` and `report --since 2h` find them.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "cli/command.hpp"
#include "cli/command_error.hpp"
#include "cli/exit_codes.hpp"
#include "core/time_spec.hpp"
#include "history/render.hpp"
#include "sim_session/simulated_vendor_tree.hpp"
#include "vendors/vendor_table.hpp"
#include "recorder/log_writer.hpp"
#include "store/database_path.hpp"
#include "recorder/storage.hpp"
#include "recorder/xid_rows.hpp"
#include "sim/engine/sim_api.hpp"
#include "sim_session/environment.hpp"
#include "sim_session/session.hpp"
#include "sim_session/timeline_recording.hpp"
#include "store/history_database.hpp"
#include "store/xid_log.hpp"

namespace gpuwatch::cli {

namespace {

struct SimRecordArgs {
  std::string scenario, duration = "10m", interval = "1s", db, csv, jsonl;
};

int run_sim_record(const SimRecordArgs& args) {
  auto span = core::parse_duration(args.duration);
  if (!span) return command_error("sim record", "--duration: " + span.error().message, kExitUsage);
  auto interval = core::parse_duration(args.interval);
  if (!interval) return command_error("sim record", "--interval: " + interval.error().message, kExitUsage);
  if (args.db.empty() && args.csv.empty() && args.jsonl.empty()) {
    return command_error("sim record", "give --db FILE, --csv FILE or --jsonl FILE: where the samples go", kExitUsage);
  }
  auto scenario = sim_session::checked_scenario(args.scenario);
  if (!scenario) return command_error("sim record", scenario.error().message, kExitUsage);

  using namespace std::chrono;
  sim_session::TimelinePlan plan;
  plan.end = time_point_cast<milliseconds>(system_clock::now());
  plan.start = plan.end - *span;
  // A scenario with `start_time` (`sim import --keep-time`) is rendered at its own times.
  auto start_ms = sim::scenario_start_ms(*scenario);
  if (!start_ms) return command_error("sim record", start_ms.error().message, kExitUsage);
  if (*start_ms) {
    plan.start = time_point<system_clock, milliseconds>(milliseconds(**start_ms));
    plan.end = plan.start + duration_cast<milliseconds>(*span);
  }
  plan.interval = *interval;
  plan.options.fields = recorder::recorded_fields();
  plan.options.processes = true;
  // Scenario time 0 is the start of the recording: set before the driver loads.
  const auto epoch_ms = duration_cast<milliseconds>(plan.start.time_since_epoch()).count();
  setenv(sim::kEpochEnv, std::to_string(epoch_ms).c_str(), 1);

  auto session = sim_session::start_sim_session(*scenario);
  if (!session) return command_error("sim record", session.error().message, session.error().code != 0 ? session.error().code : kExitRuntimeError);
  sim_session::apply_environment((*session)->environment(/*for_child=*/false));
  backend::OpenOptions open;
  open.nvidia_library = (*session)->driver_library().string();
  open.host_root = (*session)->host_root.path().string();
  open.simulated_tree = sim_session::simulated_vendor_tree_from_environment();
  auto backends = vendors::open_backends(open);
  if (backends->empty()) return command_error("sim record", backends->failure_text(), kExitNvmlUnavailable);

  std::unique_ptr<store::HistoryDatabase> db;
  std::optional<recorder::DatabaseRecorder> database_recorder;
  auto storage = recorder::parse_storage_args(recorder::StorageArgs{});
  if (!args.db.empty()) {
    if (auto ready = store::prepare_database_directory(args.db); !ready) return command_error("sim record", ready.error().message, kExitRuntimeError);
    auto opened = store::HistoryDatabase::open(args.db);
    if (!opened) return command_error("sim record", opened.error().message, kExitRuntimeError);
    db = std::move(*opened);
    database_recorder.emplace(*db, *storage, "sim record");
  }
  std::vector<std::unique_ptr<recorder::SampleLog>> logs;
  auto log_fields = history::parse_history_fields("", history::HistoryFormat::Csv);
  for (auto [path, format] : {std::pair{args.csv, history::HistoryFormat::Csv}, std::pair{args.jsonl, history::HistoryFormat::Jsonl}}) {
    if (path.empty()) continue;
    auto log = recorder::SampleLog::open(path, format, *log_fields, recorder::RotateOptions{});
    if (!log) return command_error("sim record", log.error().message, kExitRuntimeError);
    logs.push_back(std::move(*log));
  }

  // issue 25: a scenario with `host: signals:` records its simulated host beside the GPUs, tick by tick.
  auto host = sim_session::simulated_timeline_host(open.simulated_tree, open.host_root);
  const auto began = steady_clock::now();
  const bool on_terminal = isatty(fileno(stderr)) != 0;
  std::optional<core::Error> write_error;
  // The scenario's Xids (they are not in a snapshot): an event set read once per sample on the
  // virtual clock, registered at the first sample (events before registration do not count).
  std::unique_ptr<backend::EventSource> xid_events;
  std::vector<store::XidEventRow> xid_rows;
  auto recorded = sim_session::record_timeline(
      *backends, plan,
      [&](const core::Snapshot& snapshot) {
        for (auto& log : logs) {
          if (auto written = log->append(snapshot); !written && !write_error) write_error = written.error();
        }
        if (database_recorder) {
          if (!xid_events) xid_events = backends->open_events(snapshot.device_count);
          for (auto& row : recorder::xid_rows(xid_events->drain(), snapshot)) xid_rows.push_back(std::move(row));
          database_recorder->add(snapshot);
          database_recorder->flush_if_due(steady_clock::now());
        }
      },
      [&](std::size_t done, std::size_t total) {
        if (on_terminal) fmt::print(stderr, "\rgpuwatch sim record: {} / {} samples", done, total);
      },
      host ? &*host : nullptr);
  if (on_terminal) fmt::print(stderr, "\n");
  if (!recorded) return command_error("sim record", recorded.error().message, kExitRuntimeError);
  if (database_recorder) {
    database_recorder->flush();
    if (database_recorder->failing()) return command_error("sim record", "the samples could not be written to " + args.db, kExitRuntimeError);
    if (auto written = store::write_xid_events(*db, xid_rows); !written) return command_error("sim record", written.error().message, kExitRuntimeError);
  }
  if (write_error) return command_error("sim record", write_error->message, kExitRuntimeError);
  std::string where = args.db;
  for (const auto& log : logs) where += (where.empty() ? "" : ", ") + log->path();
  fmt::print(stderr, "gpuwatch sim record: {} samples of '{}' ({} at {}, {}) to {} in {:.2f} s\n", *recorded,
             args.scenario, args.duration, args.interval, *start_ms ? "from the scenario's start_time" : "ending now", where,
             duration<double>(steady_clock::now() - began).count());
  return kExitOk;
}

}  // namespace

Command add_sim_record_command(CLI::App& sim) {
  auto args = std::make_shared<SimRecordArgs>();
  Command command;
  command.app = sim.add_subcommand(
      "record", "Render a scenario's timeline into a history (or CSV/JSONL) on a virtual clock, in seconds");
  command.app->add_option("scenario", args->scenario, "Built-in scenario name or YAML file")->required();
  command.app->add_option("--duration", args->duration, "How much scenario time to record, ending now (from its start_time if it has one) [default: 10m]")->type_name("DURATION");
  command.app->add_option("--interval", args->interval, "Time between samples [default: 1s]")->type_name("DURATION");
  command.app->add_option("--db", args->db, "History database (SQLite) to write")->type_name("PATH");
  command.app->add_option("--csv", args->csv, "CSV log to write")->type_name("PATH");
  command.app->add_option("--jsonl", args->jsonl, "JSON Lines log to write")->type_name("PATH");
  command.app->footer(
      "Examples:\n"
      "  gpuwatch sim record demo --duration 6m --db d.db && gpuwatch diagnose --db d.db --since 6m\n"
      "  gpuwatch sim record thermal_runaway --duration 2h --db t.db && gpuwatch report --db t.db --since 2h\n"
      "  gpuwatch sim record training --duration 30m --interval 5s --csv training.csv");
  command.run = [args](const GlobalOptions&) { return run_sim_record(*args); };
  return command;
}

}  // namespace gpuwatch::cli
