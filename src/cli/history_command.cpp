// `gpuwatch history`: reads what `record` wrote, by time range and GPU, as a table,
// CSV or JSONL; --findings: the diagnose engine's findings of that window instead.
// Opens the database read-only: works while a recorder writes.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fmt/core.h>
#include <memory>
#include <optional>
#include <string_view>

#include "cli/command.hpp"
#include "cli/command_error.hpp"
#include "cli/exit_codes.hpp"
#include "cli/owner_options.hpp"
#include "history/owner_window.hpp"
#include "history/findings.hpp"
#include "history/findings_render.hpp"
#include "history/jobs_render.hpp"
#include "history/lost_monitors.hpp"
#include "history/render.hpp"
#include "history/source_note.hpp"
#include "store/database_path.hpp"
#include "core/time_spec.hpp"
#include "store/history_reader.hpp"
#include "store/history_reader_stream.hpp"
#include "store/jobs.hpp"

namespace gpuwatch::cli {
namespace {

struct HistoryArgs {
  std::string db, since = "1h", until, gpu, fields, format = "table", resolution = "raw", statistic = "avg";
  bool processes = false, findings = false, jobs = false;
  OwnerArgs owner;  // --slurm-job, --pod (issue 15): the range and GPUs of that job or pod
  CLI::Option* since_option = nullptr;
  CLI::Option* until_option = nullptr;
};

// --jobs: the jobs of `gpuwatch run`, newest first (table, csv or json; the time range does not apply).
int run_history_jobs(const HistoryArgs& args) {
  auto format = history::parse_jobs_format(args.format);
  if (!format) return command_error("history", format.error().message, kExitUsage);
  if (args.processes || args.findings || !args.fields.empty() || !args.gpu.empty())
    return command_error("history", "--jobs lists jobs: it takes no --processes, --findings, --fields or --gpu", kExitUsage);
  std::string path = args.db.empty() ? store::default_database_path() : args.db;
  if (path.empty()) return command_error("history", store::no_default_database_message(), kExitUsage);
  auto db = store::HistoryDatabase::open(path, store::cli_reader_options());
  if (!db) return command_error("history", db.error().message, kExitRuntimeError);
  auto jobs = store::list_jobs(**db);
  if (!jobs) return command_error("history", jobs.error().message, kExitRuntimeError);
  history::mark_lost_monitors(*jobs);  // a job whose `gpuwatch run` died: "monitor lost" (issue 31)
  std::string out = history::render_jobs(*jobs, *format, std::chrono::system_clock::now());
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

int run_history(const HistoryArgs& args) {
  auto owner_filter = cli::owner_filter(args.owner);
  if (!owner_filter) return command_error("history", owner_filter.error().message, kExitUsage);
  if (*owner_filter && args.jobs) return command_error("history", "--jobs lists the jobs of `gpuwatch run`: it takes no --slurm-job or --pod", kExitUsage);
  if (*owner_filter && (args.since_option->count() > 0 || args.until_option->count() > 0))
    return command_error("history", "--slurm-job/--pod set the range (the first to the last sample of its processes): drop --since/--until",
                kExitUsage);
  if (args.jobs) return run_history_jobs(args);  // issue 14
  // --findings (issue 10): the findings of the window instead of its samples.
  std::optional<history::FindingsFormat> findings_format;
  if (args.findings) {
    auto parsed = history::parse_findings_format(args.format);
    if (!parsed) return command_error("history", parsed.error().message, kExitUsage);
    findings_format = *parsed;
    if (args.processes || !args.fields.empty() || args.resolution != "raw" || args.statistic != "avg") {
      return command_error("history", "--findings diagnoses the raw samples: it takes no --processes, --fields, --resolution or --statistic",
                  kExitUsage);
    }
  }
  auto format = history::parse_history_format(
      !findings_format ? args.format
      : *findings_format == history::FindingsFormat::Table ? "table"
      : *findings_format == history::FindingsFormat::Csv   ? "csv"
                                                           : "jsonl");
  if (!format) return command_error("history", format.error().message, kExitUsage);
  auto fields = history::parse_history_fields(args.fields, *format);
  if (!fields) return command_error("history", fields.error().message, kExitUsage);
  const auto now = std::chrono::system_clock::now();
  store::HistoryQuery query;
  if (args.resolution == "1m") {
    query.resolution = store::Resolution::Minute;
  } else if (args.resolution == "1h") {
    query.resolution = store::Resolution::Hour;
  } else if (args.resolution != "raw") {
    return command_error("history", "--resolution takes raw, 1m or 1h", kExitUsage);
  }
  if (args.statistic == "min") {
    query.statistic = store::Statistic::Min;
  } else if (args.statistic == "max") {
    query.statistic = store::Statistic::Max;
  } else if (args.statistic != "avg") {
    return command_error("history", "--statistic takes avg, min or max", kExitUsage);
  }
  if (args.processes && query.resolution != store::Resolution::Raw) {
    return command_error("history", "--processes reads raw samples only (process samples are not rolled up)", kExitUsage);
  }
  auto range = core::parse_time_range(args.since, args.until, now);
  if (!range) return command_error("history", range.error().message, kExitUsage);
  query.since_ms = range->since_ms;
  query.until_ms = range->until_ms;
  if (!args.gpu.empty()) {
    if (args.gpu.rfind("GPU-", 0) == 0) {
      query.gpu_uuid = args.gpu;
    } else if (args.gpu.find_first_not_of("0123456789") == std::string::npos && args.gpu.size() < 6) {
      query.gpu_index = static_cast<unsigned>(std::stoul(args.gpu));
    } else {
      return command_error("history", "--gpu takes a GPU index (0, 1, ...) or a UUID (GPU-...)", kExitUsage);
    }
  }
  std::string path = args.db.empty() ? store::default_database_path() : args.db;
  if (path.empty()) return command_error("history", store::no_default_database_message(), kExitUsage);
  auto db = store::HistoryDatabase::open(path, store::cli_reader_options());
  if (!db) return command_error("history", db.error().message, kExitRuntimeError);
  if (auto known = store::check_gpu_selection(**db, query); !known) return command_error("history", known.error().message, kExitUsage);
  std::optional<store::OwnerWindow> owner;  // --slurm-job, --pod: its range; its GPUs below
  if (*owner_filter) {
    auto window = history::find_owner_window(**db, **owner_filter, path);
    if (!window) return command_error("history", window.error().message, kExitUsage);
    owner = std::move(*window);
    query.since_ms = owner->first_ms;
    query.until_ms = owner->last_ms;
    fmt::print(stderr, "gpuwatch history: {}\n", history::owner_window_line(*owner));
  }
  history::print_source_note(**db, query, *format);  // simulated data says so (issue 9)
  if (findings_format) {
    auto diagnosis = history::diagnose_recorded(**db, query.since_ms, query.until_ms);
    if (!diagnosis) return command_error("history", diagnosis.error().message, kExitRuntimeError);
    auto selected = history::findings_involving(diagnosis->findings, query.gpu_index, query.gpu_uuid);
    if (owner) {
      history::keep_findings_of(selected, *owner);
    }
    std::string out = history::render_findings(
        selected, *findings_format,
        diagnosis->snapshots == 0 ? "No findings: no samples in that range"
                                  : fmt::format("No findings in the {} samples of that range", diagnosis->snapshots));
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (diagnosis->snapshots == 0) fmt::print(stderr, "gpuwatch history: no samples in that range\n");
    return kExitOk;
  }
  if (args.processes) {
    auto processes = store::read_process_summaries(**db, query);
    if (!processes) return command_error("history", processes.error().message, kExitRuntimeError);
    if (owner) {  // the job's or pod's own processes
      std::erase_if(*processes, [&](const store::ProcessSummary& p) {
        return !owner->ran(p.gpu_uuid, p.gpu_index.value_or(~0u), p.pid);
      });
    }
    std::string out = history::render_process_summaries(*processes, *format);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kExitOk;
  }
  // Streamed (issue 31's leftover): each snapshot is written as it is read, never the whole
  // range in memory (a day on 8 GPUs was 10.8 GB); only the fields shown are read.
  query.columns = *fields;
  history::HistoryOutput output(*fields, *format,
                                [](std::string_view piece) { std::fwrite(piece.data(), 1, piece.size(), stdout); });
  core::Snapshot held;  // --slurm-job/--pod: the GPUs the job or pod held, reused from row to row
  auto read = store::for_each_snapshot(**db, query, [&](const core::Snapshot& snapshot) {
    if (!owner) return output.add(snapshot);
    held.timestamp = snapshot.timestamp;
    held.error_strings = snapshot.error_strings;
    held.devices.clear();
    for (const auto& device : snapshot.devices) {
      if (owner->holds(device.get(core::FieldId::Uuid).as_string(), device.index)) held.devices.push_back(device);
    }
    if (!held.devices.empty()) output.add(held);
  });
  if (!read) return command_error("history", read.error().message, kExitRuntimeError);
  output.finish();
  if (output.snapshots() == 0) fmt::print(stderr, "gpuwatch history: no samples in that range\n");
  return kExitOk;
}

}  // namespace

Command add_history_command(CLI::App& app) {
  auto args = std::make_shared<HistoryArgs>();
  Command command;
  command.app = app.add_subcommand("history", "Print recorded samples (see `gpuwatch record`) as a table, CSV or JSONL");
  auto* c = command.app;
  c->add_option("--db", args->db, "History database [default: as `record`]");
  args->since_option = c->add_option("--since", args->since,
                "From this time: a duration before now (2h, 30m, 7d), an ISO date/time, @UNIX_SECONDS, or all "
                "[default: 1h]");
  args->until_option = c->add_option("--until", args->until, "Up to this time (same forms as --since) [default: now]");
  c->add_option("--gpu", args->gpu, "Only this GPU: index at recording time, or UUID");
  c->add_option("--fields", args->fields,
                "Comma-separated fields, names as `query --query-gpu` (only recorded ones) [default: a summary]");
  c->add_option("--format", args->format, "table, csv or jsonl [default: table]");
  c->add_option("--resolution", args->resolution,
                "raw samples, or the rollups of older history: 1m (per minute) or 1h (per hour) [default: raw]");
  c->add_option("--statistic", args->statistic, "With --resolution 1m/1h: avg, min or max of each bucket [default: avg]");
  c->add_flag("--processes", args->processes,
              "List the GPU processes seen instead: pid, user, name, peak memory, first/last seen");
  c->add_flag("--findings", args->findings,
              "List the findings of the window instead (as `gpuwatch diagnose`): start, end, GPU(s), severity, kind, "
              "summary; --format table, csv, json or jsonl");
  c->add_flag("--jobs", args->jobs,
              "List the jobs of `gpuwatch run` instead, newest first: id, start, wall time, exit status, GPUs, "
              "GPU-hours, energy, user, name, command; --format table, csv or json");
  add_owner_options(*c, args->owner, "the samples (--processes: the processes)");
  c->footer("Examples:\n"
            "  gpuwatch history --since 2h\n"
            "  gpuwatch history --db h.db --gpu 0 --format csv --fields utilization.gpu,memory.used\n"
            "  gpuwatch history --since 7d --resolution 1h --statistic max\n"
            "  gpuwatch history --findings --since 24h --gpu 3   # or --processes; --jobs: the jobs of `run`;\n"
            "                                                    # --slurm-job ID, --pod NS/NAME: that job's or pod's");
  command.run = [args](const GlobalOptions&) { return run_history(*args); };
  return command;
}

}  // namespace gpuwatch::cli
