// `gpuwatch diagnose`: why a GPU is underused or unhealthy. Reads the recorded history (the
// default database of serve/record, or --db) over --since; with no history there, samples
// live for --for and diagnoses that. Exit 0: healthy or only info findings; 1: a finding at
// --fail-on or worse (warning by default), so it fits cron and CI.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/sink_text.hpp"
#include "core/json_text.hpp"
#include "cli/command.hpp"
#include "cli/command_error.hpp"
#include "cli/exit_codes.hpp"
#include "cli/open_backends.hpp"
#include "core/time_spec.hpp"
#include "diagnose/diagnoser.hpp"
#include "diagnose/finding_groups.hpp"
#include "diagnose/finding_json.hpp"
#include "diagnose/finding_text.hpp"
#include "diagnose/problem_order.hpp"
#include "diagnose/window_diagnosis.hpp"
#include "history/findings.hpp"
#include "store/database_path.hpp"
#include "recorder/storage.hpp"
#include "sampler/sampler.hpp"
#include "sampler/ticker.hpp"
#include "store/history_database.hpp"
#include "terminal/style.hpp"

namespace gpuwatch::cli {

namespace {

struct DiagnoseArgs {
  std::string db, since = "15m", until, live_for = "30s", interval = "1s", fail_on = "warning";
  bool json = false, live = false, episodes = false;
};

struct Source {
  std::string description;  // "6m of history in d.db" / "30 s of live samples"
  std::size_t samples = 0;
};

// The recorded window, or nullopt when there is no history to read (then: live).
std::optional<core::Result<history::RecordedDiagnosis>> from_history(const DiagnoseArgs& args, std::string& db_path) {
  db_path = args.db.empty() ? store::default_database_path() : args.db;
  if (db_path.empty() || (args.db.empty() && !std::filesystem::exists(db_path))) return std::nullopt;
  if (!args.db.empty() && !std::filesystem::exists(db_path)) {
    return core::Result<history::RecordedDiagnosis>(core::make_error(db_path + ": no such history database", kExitUsage));
  }
  store::OpenOptions options = store::cli_reader_options();  // a deadline and a memory bound (issue 31)
  options.single_thread = true;
  auto db = store::HistoryDatabase::open(db_path, options);
  if (!db) return core::Result<history::RecordedDiagnosis>(core::make_error(db.error().message, kExitRuntimeError));
  auto range = core::parse_time_range(args.since, args.until, std::chrono::system_clock::now());
  if (!range) return core::Result<history::RecordedDiagnosis>(core::make_error(range.error().message, kExitUsage));
  auto diagnosis = history::diagnose_recorded(**db, range->since_ms, range->until_ms);
  if (diagnosis && diagnosis->snapshots == 0 && args.db.empty()) return std::nullopt;  // default db, nothing recent
  return diagnosis;
}

core::Result<history::RecordedDiagnosis> from_live(const DiagnoseArgs& args, const GlobalOptions& global) {
  auto span = core::parse_duration(args.live_for);
  if (!span) return core::make_error("--for: " + span.error().message, kExitUsage);
  auto interval = core::parse_duration(args.interval);
  if (!interval) return core::make_error("--interval: " + interval.error().message, kExitUsage);
  auto backends = open_backends_for_command(global);
  if (!backends) return core::make_error("", kExitNvmlUnavailable);
  sampler::Sampler sampler(*backends);
  sampler::SampleOptions options;
  // options.fields empty: every field (maximum clocks, slowdown threshold, PCIe link... help).
  options.processes = true;
  diagnose::Diagnoser diagnoser;
  const std::size_t total = std::max<std::size_t>(1, static_cast<std::size_t>(*span / *interval));
  const bool on_terminal = isatty(fileno(stderr)) != 0;
  sampler::Ticker ticker(*interval);
  history::RecordedDiagnosis out;
  std::optional<std::chrono::system_clock::time_point> first, last;
  for (std::size_t i = 0; i < total; ++i) {
    if (i > 0) ticker.wait();
    auto snapshot = sampler.sample(options);
    if (i == 0 && snapshot.device_count == 0) return core::make_error("NVML works but reports no GPU", kExitNoDevices);
    diagnoser.observe(snapshot);
    if (!first) first = snapshot.timestamp;
    last = snapshot.timestamp;
    ++out.snapshots;
    if (on_terminal) fmt::print(stderr, "\rgpuwatch diagnose: sampling live, {} / {} s ", i + 1, total * interval->count() / 1000);
  }
  if (on_terminal) fmt::print(stderr, "\r\033[K");
  out.findings = diagnoser.all_findings();
  if (first) out.findings = diagnose::group_findings(out.findings, {*first, *last});  // one per problem, as from history
  return out;
}

std::optional<diagnose::Severity> parse_fail_on(const std::string& text, bool& never) {
  never = text == "never";
  if (never) return diagnose::Severity::Critical;
  return diagnose::severity_from_string(text);
}

int run_diagnose(const DiagnoseArgs& args, const GlobalOptions& global) {
  bool never = false;
  auto fail_on = parse_fail_on(args.fail_on, never);
  if (!fail_on) return command_error("diagnose", "--fail-on takes info, warning, critical or never, not '" + args.fail_on + "'", kExitUsage);

  std::string db_path, source;
  std::optional<core::Result<history::RecordedDiagnosis>> recorded;
  if (!args.live) recorded = from_history(args, db_path);
  core::Result<history::RecordedDiagnosis> diagnosis = recorded ? std::move(*recorded) : from_live(args, global);
  if (!diagnosis) {
    if (!diagnosis.error().message.empty()) fmt::print(stderr, "gpuwatch diagnose: {}\n", core::terminal_lines(diagnosis.error().message));
    return diagnosis.error().code != 0 ? diagnosis.error().code : kExitRuntimeError;
  }
  if (recorded) {
    if (diagnosis->snapshots == 0) {
      return command_error("diagnose", fmt::format("{} has no samples in --since {}{}: record some first (gpuwatch record / serve, or "
                              "gpuwatch sim record SCENARIO --db FILE)", db_path, args.since,
                              args.until.empty() ? "" : " --until " + args.until),
                  kExitUsage);
    }
    source = fmt::format("{} samples from {} ({} → {})", diagnosis->snapshots, db_path,
                         core::format_iso8601(std::chrono::system_clock::time_point(std::chrono::milliseconds(*diagnosis->first_ms))),
                         core::format_iso8601(std::chrono::system_clock::time_point(std::chrono::milliseconds(*diagnosis->last_ms))));
  } else {
    source = fmt::format("{} live samples over {}", diagnosis->snapshots, args.live_for);
  }

  const auto& findings = diagnosis->findings;
  if (args.json) {
    auto json = diagnose::findings_json(findings);
    json["source"] = source;
    json["samples"] = diagnosis->snapshots;
    json["summary"] = diagnose::problem_sentences(findings);  // one sentence per problem, most urgent first
    fmt::print("{}\n", core::json_text(json, 2));
  } else {
    terminal::Style style(terminal::should_use_color(global.no_color, terminal::stdout_is_terminal()));
    auto paint = [&style](diagnose::Severity severity, const std::string& word) {
      auto color = severity == diagnose::Severity::Critical  ? terminal::Color::BoldRed
                   : severity == diagnose::Severity::Warning ? terminal::Color::BoldYellow
                                                             : terminal::Color::Cyan;
      return style.paint(word, color);
    };
    fmt::print("gpuwatch diagnose: {}\n", core::terminal_text(source));
    if (findings.empty()) {
      fmt::print("{} no findings: the GPUs look healthy over this window.\n", style.paint("OK", terminal::Color::BoldGreen));
    } else {
      // One sentence per problem, most urgent first (issue 23), then each finding in full.
      if (const auto sentences = diagnose::problem_sentences(findings); !sentences.empty()) {
        fmt::print("\nSummary:\n");
        for (const auto& sentence : sentences) fmt::print("  - {}\n", core::terminal_text(sentence));
      }
      fmt::print("\n{}", diagnose::findings_text(findings, paint, args.episodes));
    }
  }
  auto worst = diagnose::worst_severity(findings);
  return (!never && worst && *worst >= *fail_on) ? kExitRuntimeError : kExitOk;
}

}  // namespace

Command add_diagnose_command(CLI::App& app) {
  auto args = std::make_shared<DiagnoseArgs>();
  Command command;
  command.app = app.add_subcommand("diagnose", "Say why a GPU is underused or unhealthy (throttling, starvation, leaks, "
                                               "hung jobs, failing hardware...) and what to do");
  command.app->add_option("--db", args->db, "History database to read [default: the one serve and record write]")->type_name("PATH");
  command.app->add_option("--since", args->since, "Start of the window: 15m, 2h, 2026-11-29T14:00, @UNIX [default: 15m]")->type_name("TIME");
  command.app->add_option("--until", args->until, "End of the window [default: now]")->type_name("TIME");
  command.app->add_flag("--live", args->live, "Sample live even when there is a history");
  command.app->add_option("--for", args->live_for, "With no history (or --live): sample live this long [default: 30s]")->type_name("DURATION");
  command.app->add_option("--interval", args->interval, "Live sampling interval [default: 1s]")->type_name("DURATION");
  command.app->add_option("--fail-on", args->fail_on,
                          "Exit 1 at this severity or worse: info, warning, critical, never [default: warning]")->type_name("LEVEL");
  command.app->add_flag("--episodes", args->episodes,
                        "List each finding's episodes under it (a problem that came and went is one finding; "
                        "the JSON always has its episodes)");
  command.app->add_flag("--json", args->json, "Print {\"findings\": [...]} (schema in docs/api.md)");
  command.app->footer(
      "Examples:\n"
      "  gpuwatch diagnose                          # the last 15 minutes of recorded history, or 30 s live\n"
      "  gpuwatch diagnose --db d.db --since 6m --json\n"
      "  gpuwatch --simulate thermal_runaway diagnose --live --for 1m\n"
      "  gpuwatch diagnose --fail-on critical || page-someone   # cron: only critical findings fail");
  command.run = [args](const GlobalOptions& global) { return run_diagnose(*args, global); };
  return command;
}

}  // namespace gpuwatch::cli
