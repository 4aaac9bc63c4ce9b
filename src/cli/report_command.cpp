// `gpuwatch report`: the findings of a time range of the history first (diagnose engine,
// worst first), then a per-GPU summary (mean/p95 utilization, idle share, peak memory,
// energy, throttling, temperature, processes) in the terminal, as JSON, or as a
// self-contained HTML file with charts (-o).
// Opens the database read-only: works while a recorder writes.
#include <CLI/CLI.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/core.h>
#include <memory>

#include "cli/command.hpp"
#include "cli/exit_codes.hpp"
#include "history/findings.hpp"
#include "recorder/paths.hpp"
#include "core/time_spec.hpp"
#include "report/render.hpp"
#include "store/history_report.hpp"

namespace gpuwatch::cli {
namespace {

struct ReportArgs {
  std::string db, since = "24h", until, output, format = "text";
};

int fail(const std::string& message, int code) {
  fmt::print(stderr, "gpuwatch report: {}\n", message);
  return code;
}

// Writes to PATH.tmp, then renames: a reader never sees half a report.
core::Result<void> write_file(const std::string& path, const std::string& content) {
  const std::string temporary = path + ".tmp";
  std::FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) return core::make_error("cannot write " + path + ": " + std::strerror(errno), 1);
  const bool written = std::fwrite(content.data(), 1, content.size(), file) == content.size();
  const bool closed = std::fclose(file) == 0;
  if (!written || !closed || std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return core::make_error("cannot write " + path + ": " + std::strerror(errno), 1);
  }
  return {};
}

int run_report(const ReportArgs& args) {
  if (args.format != "text" && args.format != "json") return fail("--format takes text or json", kExitUsage);
  const auto now = std::chrono::system_clock::now();
  store::ReportQuery query;
  auto range = core::parse_time_range(args.since, args.until, now);
  if (!range) return fail(range.error().message, kExitUsage);
  query.since_ms = range->since_ms;
  query.until_ms = range->until_ms;
  if (args.output.empty()) query.chart_points = 0;
  std::string path = args.db.empty() ? recorder::default_database_path() : args.db;
  if (path.empty()) return fail(recorder::no_default_database_message(), kExitUsage);
  auto db = store::HistoryDatabase::open(path, store::OpenOptions{.read_only = true});
  if (!db) return fail(db.error().message, kExitRuntimeError);
  auto report = store::build_report(**db, query);
  if (!report) return fail(report.error().message, kExitRuntimeError);
  if (report->gpus.empty()) fmt::print(stderr, "gpuwatch report: no samples in that range\n");
  // Findings first (issue 10): the diagnose engine over the range's raw samples.
  report::ReportFindings findings;
  if (!report->gpus.empty()) {
    auto diagnosis = history::diagnose_recorded(**db, range->since_ms, range->until_ms);
    if (!diagnosis) return fail(diagnosis.error().message, kExitRuntimeError);
    findings = {true, std::move(diagnosis->findings), diagnosis->snapshots, diagnosis->first_ms, diagnosis->last_ms};
  }
  if (!args.output.empty()) {
    if (auto written = write_file(args.output, report::render_report_html(*report, findings)); !written) {
      return fail(written.error().message, kExitRuntimeError);
    }
    fmt::print(stderr, "gpuwatch report: wrote {}\n", args.output);
  }
  std::string out = args.format == "json" ? report::render_report_json(*report, findings)
                                          : report::render_report_text(*report, findings);
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
  c->add_option("--since", args->since,
                "From this time: a duration before now (24h, 30m, 7d), an ISO date/time, @UNIX_SECONDS, or all "
                "[default: 24h]");
  c->add_option("--until", args->until, "Up to this time (same forms as --since) [default: now]");
  c->add_option("-o,--output", args->output, "Also write a self-contained HTML report (tables and charts) to FILE");
  c->add_option("--format", args->format, "Terminal summary: text or json [default: text]");
  c->footer("Examples:\n"
            "  gpuwatch report                          the last 24 hours, in the terminal\n"
            "  gpuwatch report --since 7d -o week.html  a week, as an HTML report with charts\n"
            "  gpuwatch report --db h.db --format json");
  command.run = [args](const GlobalOptions&) { return run_report(*args); };
  return command;
}

}  // namespace gpuwatch::cli
