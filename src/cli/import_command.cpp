// `gpuwatch import FILE... [--db PATH]`: real logs (nvidia-smi --query-gpu CSV, dmon, pmon, gpustat --json) into
// the history with their own times, as imported data from that file (src/importer).
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/command_error.hpp"
#include "cli/exit_codes.hpp"
#include "core/time_spec.hpp"
#include "importer/import_session.hpp"
#include "importer/log_cells.hpp"
#include "store/database_path.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::cli {
namespace {

struct ImportArgs {
  std::vector<std::string> files;
  std::string db, columns, start, interval = "1s", utc_offset = "+00:00";
  unsigned gpus = 0;
  bool dry_run = false;
};

std::vector<std::string> column_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    std::string name = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto first = name.find_first_not_of(' ');
    name = first == std::string::npos ? "" : name.substr(first, name.find_last_not_of(' ') - first + 1);
    if (!name.empty()) out.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

int run_import(const ImportArgs& args) {
  importer::ParseOptions options;
  options.columns = column_list(args.columns);
  auto offset = importer::parse_utc_offset(args.utc_offset);
  if (!offset) return command_error("import", "--utc-offset takes +HH:MM or -HH:MM (e.g. +02:00), or 0", kExitUsage);
  options.utc_offset_minutes = *offset;
  auto interval = core::parse_duration(args.interval);
  if (!interval) return command_error("import", "--interval: " + interval.error().message, kExitUsage);
  options.interval_ms = interval->count();
  if (!args.start.empty()) {
    options.start_ms = importer::parse_log_time(args.start, *offset);
    if (!options.start_ms) {
      auto spec = core::parse_time_spec(args.start, std::chrono::system_clock::now());
      if (!spec) return command_error("import", "--start: " + spec.error().message, kExitUsage);
      options.start_ms = *spec;
    }
  }
  if (args.gpus > 0) options.gpus = args.gpus;
  int stdin_uses = 0;
  for (const auto& f : args.files) stdin_uses += f == "-" ? 1 : 0;
  if (stdin_uses > 1) return command_error("import", "'-' (standard input) can be given once", kExitUsage);

  std::unique_ptr<store::HistoryDatabase> db;
  if (!args.dry_run) {
    std::string path = args.db.empty() ? store::default_database_path() : args.db;
    if (path.empty()) return command_error("import", store::no_default_database_message(), kExitUsage);
    if (auto ready = store::prepare_database_directory(path); !ready) return command_error("import", ready.error().message, kExitRuntimeError);
    auto opened = store::HistoryDatabase::open(path);
    if (!opened) return command_error("import", opened.error().message, kExitRuntimeError);
    db = std::move(*opened);
  }
  bool nothing_imported = false;
  for (const auto& file : args.files) {
    std::FILE* in = file == "-" ? stdin : std::fopen(file.c_str(), "rb");
    if (!in) return command_error("import", fmt::format("cannot open {}: {}", file, std::strerror(errno)), kExitUsage);
    auto summary = importer::import_log(in, file, options, db.get());
    if (in != stdin) std::fclose(in);
    if (!summary) return command_error("import", summary.error().message, summary.error().code == 2 ? kExitUsage : kExitRuntimeError);
    const std::string text = importer::render_import_summary(*summary, args.dry_run);
    std::fwrite(text.data(), 1, text.size(), stdout);
    // A log whose columns gpuwatch doesn't know reads as nothing: say so rather than succeed.
    if (summary->rows == 0) {
      nothing_imported = true;
      command_error("import", fmt::format("{}: no rows with a field gpuwatch knows; name the columns with "
                                          "--columns (e.g. --columns timestamp,index,utilization.gpu)",
                                          file),
                    kExitUsage);
    }
  }
  return nothing_imported ? kExitUsage : kExitOk;
}

}  // namespace

Command add_import_command(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  Command command;
  command.app = app.add_subcommand("import", "Bring real logs (nvidia-smi --query-gpu CSV, dmon, pmon, gpustat --json, dcgmi dmon) into the history");
  CLI::App* sub = command.app;
  sub->add_option("files", args->files, "Log files ('-': standard input)")->required();
  sub->add_option("--db", args->db, "History database to write (default: the recorder's)");
  sub->add_option("--columns", args->columns,
                  "The query names of a noheader CSV's columns, in order (e.g. timestamp,index,utilization.gpu)");
  sub->add_option("--start", args->start, "When the first sample of a log without times was taken (dmon/pmon without -o DT, dcgmi dmon)");
  sub->add_option("--interval", args->interval, "Time between the samples of a log without times (default 1s)");
  sub->add_option("--utc-offset", args->utc_offset, "The zone of the log's times when they carry none (default +00:00: UTC)");
  sub->add_option("--gpus", args->gpus, "GPUs per sample of a log with no index, uuid or pci.bus_id column (default: by time)");
  sub->add_flag("--dry-run", args->dry_run, "Read and check the logs, say what would be imported, write nothing");
  sub->footer("Examples:\n"
              "  gpuwatch import gpu_log.csv --db h.db                  an nvidia-smi --query-gpu log, with its header\n"
              "  gpuwatch import log.csv --columns timestamp,index,utilization.gpu --dry-run   a noheader log: what it holds\n"
              "  gpuwatch import dmon.log --start '2025-06-13 00:27:52' a dmon log without -o DT\n"
              "  nvidia-smi dmon -o DT | gpuwatch import - --db h.db     standard input");
  command.run = [args](const GlobalOptions&) { return run_import(*args); };
  return command;
}

}  // namespace gpuwatch::cli
