// `gpuwatch report`: the findings of a time range of the history first (diagnose engine,
// worst first), then a per-GPU summary (mean/p95 utilization, idle share, peak memory,
// energy, throttling, temperature, processes) in the terminal, as JSON, or as a
// self-contained HTML file with charts (-o).
// Opens the database read-only: works while a recorder writes.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/core.h>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/sink_text.hpp"
#include "core/json_text.hpp"
#include "core/safe_file.hpp"
#include "cli/command.hpp"
#include "cli/command_error.hpp"
#include "cli/energy_options.hpp"
#include "cli/exit_codes.hpp"
#include "cli/owner_options.hpp"
#include "history/owner_energy.hpp"
#include "history/owner_window.hpp"
#include "history/findings.hpp"
#include "store/database_path.hpp"
#include "core/time_spec.hpp"
#include "jobs/energy_report.hpp"
#include "report/job_block.hpp"
#include "report/owner_block.hpp"
#include "report/render.hpp"
#include "store/history_report.hpp"
#include "store/jobs.hpp"

namespace gpuwatch::cli {
namespace {

struct ReportArgs {
  std::string db, since = "24h", until, output, format = "text";
  bool utc = false;      // --utc: the text's and the page's times in UTC, not the local zone
  std::int64_t job = 0;  // report --job ID: the range and GPUs of a `gpuwatch run` job (0: none)
  OwnerArgs owner;       // --slurm-job, --pod (issue 15): the range and GPUs of that job or pod
  EnergyArgs energy;     // the owner's cost and CO2 (issue 29)
  CLI::Option* since_option = nullptr;
  CLI::Option* until_option = nullptr;
};

// A fresh temporary file next to PATH, then a rename: a reader never sees half a report, and
// a link planted at a predictable name (PATH.tmp) is never followed (core/safe_file.hpp).
core::Result<void> write_file(const std::string& path, const std::string& content) {
  return core::write_file_atomically(path, content);
}

int run_report(const ReportArgs& args) {
  if (args.format != "text" && args.format != "json") return command_error("report", "--format takes text or json", kExitUsage);
  const auto now = std::chrono::system_clock::now();
  store::ReportQuery query;
  if (args.job != 0 && (args.since_option->count() > 0 || args.until_option->count() > 0))
    return command_error("report", "--job sets the range (the job's start to its end): drop --since/--until", kExitUsage);
  auto owner_filter = cli::owner_filter(args.owner);
  if (!owner_filter) return command_error("report", owner_filter.error().message, kExitUsage);
  if (*owner_filter && args.job != 0)
    return command_error("report", "--job is a job of `gpuwatch run`; --slurm-job/--pod pick a Slurm job or pod: give one of them", kExitUsage);
  if (*owner_filter && (args.since_option->count() > 0 || args.until_option->count() > 0))
    return command_error("report", "--slurm-job/--pod set the range (the first to the last sample of its processes): drop --since/--until",
                kExitUsage);
  auto rates = energy_rates(args.energy);
  if (!rates) return command_error("report", rates.error().message, kExitUsage);
  auto range = core::parse_time_range(args.since, args.until, now);
  if (!range) return command_error("report", range.error().message, kExitUsage);
  query.since_ms = range->since_ms;
  query.until_ms = range->until_ms;
  if (args.output.empty()) query.chart_points = 0;
  std::string path = args.db.empty() ? store::default_database_path() : args.db;
  if (path.empty()) return command_error("report", store::no_default_database_message(), kExitUsage);
  auto db = store::HistoryDatabase::open(path, store::cli_reader_options());
  if (!db) return command_error("report", db.error().message, kExitRuntimeError);
  std::optional<store::JobRow> job;
  if (args.job != 0) {
    auto found = store::find_job(**db, args.job);
    if (!found) return command_error("report", found.error().message, kExitRuntimeError);
    if (*found) {
      job = std::move(**found);
      range->since_ms = query.since_ms = job->start_ms;
      range->until_ms = query.until_ms = job->end_ms.value_or(
          std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count());
    } else {
      // No `gpuwatch run` job of that id: a Slurm job's id is what a cluster user knows, so a
      // recorded Slurm job of that id answers (as --slurm-job would), and the report says so.
      auto slurm = store::slurm_job_filter(std::to_string(args.job));
      if (!slurm || !history::find_owner_window(**db, *slurm, path)) {
        return command_error("report", fmt::format("no job {} in {}: neither a `gpuwatch run` job (`gpuwatch history --jobs` lists "
                                "them) nor a recorded Slurm job",
                                args.job, path),
                    kExitUsage);
      }
      fmt::print(stderr, "gpuwatch report: no `gpuwatch run` job {}: reporting Slurm job {}\n", args.job, args.job);
      *owner_filter = *slurm;
    }
  }
  std::optional<store::OwnerWindow> owner;
  if (*owner_filter) {
    auto window = history::find_owner_window(**db, **owner_filter, path);
    if (!window) return command_error("report", window.error().message, kExitUsage);
    owner = std::move(*window);
    range->since_ms = query.since_ms = owner->first_ms;
    range->until_ms = query.until_ms = owner->last_ms;
  }
  // The diagnosis (the slower half over a long range) runs beside the figures, on its own
  // read-only connection: a day of 8 GPUs takes about as long as the longer of the two.
  auto diagnosis_run = std::async(std::launch::async, [&path, since = range->since_ms, until = range->until_ms, utc = args.utc]()
                                      -> core::Result<history::RecordedDiagnosis> {
    auto own = store::HistoryDatabase::open(path, store::cli_reader_options());
    if (!own) return own.error();
    return history::diagnose_recorded(**own, since, until, {.utc = utc});  // grouped; times in words as --utc says
  });
  auto report = store::build_report(**db, query);
  if (!report) return command_error("report", report.error().message, kExitRuntimeError);
  if (job) report::restrict_to_job(*report, *job);
  if (owner) report::restrict_to_owner(*report, *owner);
  if (report->gpus.empty()) fmt::print(stderr, "gpuwatch report: no samples in that range\n");
  // Findings first (issue 10): the diagnose engine over the range's raw samples.
  report::ReportFindings findings;
  if (!report->gpus.empty()) {
    auto diagnosis = diagnosis_run.get();
    if (!diagnosis) return command_error("report", diagnosis.error().message, kExitRuntimeError);
    if (job) {  // only the findings on the job's GPUs
      const auto gpus = report::job_gpus(*job).indices;
      std::erase_if(diagnosis->findings, [&](const diagnose::Finding& f) {
        return std::none_of(f.gpus.begin(), f.gpus.end(),
                            [&](unsigned g) { return std::find(gpus.begin(), gpus.end(), g) != gpus.end(); });
      });
    }
    if (owner) {  // only the findings on the owner's GPUs
      history::keep_findings_of(diagnosis->findings, *owner);
    }
    findings = {true, std::move(diagnosis->findings), diagnosis->snapshots, diagnosis->first_ms, diagnosis->last_ms};
  }
  if (!args.output.empty()) {
    if (auto written = write_file(args.output, report::render_report_html(*report, findings, {args.utc})); !written) {
      return command_error("report", written.error().message, kExitRuntimeError);
    }
    fmt::print(stderr, "gpuwatch report: wrote {}\n", args.output);
  }
  // The text's fields are encoded where they are laid out; every line once more here, so a
  // field that a future change forgets still cannot reach the terminal raw (issue 31).
  std::string out = args.format == "json" ? report::render_report_json(*report, findings)
                                          : core::terminal_lines(report::render_report_text(*report, findings, {args.utc}));
  if (owner && !report->gpus.empty()) {  // its energy, waste, cost and CO2, as `run` gives a job's (issue 29)
    auto energy = history::owner_energy(**db, **owner_filter, *owner, findings.findings, *rates, jobs::local_hour);
    if (!energy) return command_error("report", energy.error().message, kExitRuntimeError);
    if (args.format == "json") {
      auto json = nlohmann::ordered_json::parse(out);
      json["owner_energy"] = nlohmann::ordered_json(jobs::energy_report_json(energy->report));  // null: no energy read
      if (json["owner_energy"].is_object()) {
        json["owner_energy"]["owner"] = owner->title;
        json["owner_energy"]["shared_gpus"] = nlohmann::ordered_json(history::shared_gpus_json(energy->shared));
      }
      out = core::json_text(json, 2) + "\n";
    } else if (energy->report.total_j) {
      out += core::terminal_lines(fmt::format("\nEnergy of {}:\n{}{}", owner->title, jobs::energy_report_text(energy->report),
                                              history::shared_gpus_text(energy->shared)));
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto args = std::make_shared<ReportArgs>();
  Command command;
  command.app = app.add_subcommand(
      "report", "Summarise the recorded history: findings first (throttling, leaks, starvation...), then per GPU "
                "(utilization, idle time, memory, energy, throttling, temperature, processes); -o writes an HTML "
                "report with charts");
  auto* c = command.app;
  c->add_option("--db", args->db, "History database [default: as `record`]");
  args->since_option = c->add_option("--since", args->since,
                "From this time: a duration before now (24h, 30m, 7d), an ISO date/time, @UNIX_SECONDS, or all "
                "[default: 24h]");
  args->until_option = c->add_option("--until", args->until, "Up to this time (same forms as --since) [default: now]");
  c->add_option("--job", args->job,
                "Only the job ID of `gpuwatch run` (see `gpuwatch history --jobs`): its start to its end, its GPUs, "
                "titled with the job; when there is none, the recorded Slurm job ID (as --slurm-job)");
  add_owner_options(*c, args->owner, "the report");
  add_energy_options(*c, args->energy, "a Slurm job's or pod's (--slurm-job, --pod)");
  c->add_option("-o,--output", args->output, "Also write a self-contained HTML report (tables and charts) to FILE");
  c->add_option("--format", args->format, "Terminal summary: text or json [default: text]");
  c->add_flag("--utc", args->utc, "Times in UTC (the text and the HTML page; JSON is ISO 8601 with the offset) "
                                  "[default: the local time zone, as `status`]");
  c->footer("Examples:\n"
            "  gpuwatch report                          the last 24 hours, in the terminal\n"
            "  gpuwatch report --since 7d -o week.html  a week, as an HTML report with charts\n"
            "  gpuwatch report --db h.db --format json\n"
            "  gpuwatch report --job 12 -o job.html     one `gpuwatch run` job, its GPUs and time only\n"
            "                                           (--slurm-job ID, --pod NS/NAME: a Slurm job's, a pod's)");
  command.run = [args](const GlobalOptions&) { return run_report(*args); };
  return command;
}

}  // namespace gpuwatch::cli
