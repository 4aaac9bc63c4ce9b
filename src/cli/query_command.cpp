// `gpuwatch query`: a drop-in for `nvidia-smi --query-gpu / --query-compute-apps`.
// The I/O shell around the pure renderers in csv_render.cpp and query_json.cpp.
#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/core.h>
#include <memory>
#include <optional>
#include <string>

#include "core/json_text.hpp"
#include "cli/command.hpp"
#include "cli/duration_option.hpp"
#include "terminal/csv_render.hpp"
#include "cli/exit_codes.hpp"
#include "query/devices.hpp"
#include "query/help.hpp"
#include "query/json.hpp"
#include "query/options.hpp"
#include "cli/open_backends.hpp"
#include "sampler/gpu_selection.hpp"
#include "sampler/ticker.hpp"
#include "sampler/sampler.hpp"
#include "sampler/deadline_sampler.hpp"
#include "cli/timeout_option.hpp"

namespace gpuwatch::cli {
namespace {

constexpr std::chrono::milliseconds kDefaultLoop{5000};  // nvidia-smi's -l without a value

struct QueryArgs {
  std::string query_gpu, query_apps, format, ids, filename;
  std::chrono::milliseconds loop{0};  // 0: once
  std::string loop_text;               // -l [DURATION]: nvidia-smi's default interval is 5 s
  const CLI::Option* loop_option = nullptr;
  std::string loop_ms_text;            // --loop-ms / -lms MS: a bare number is milliseconds
  std::chrono::milliseconds loop_ms{0};
  long count = 0;  // extension: stop after N samples (0: until interrupted)
  bool help_gpu = false, help_apps = false;
  std::chrono::milliseconds timeout = sampler::kDefaultDeadline;  // --timeout (issue 16)
};

struct QueryPlan {
  std::vector<core::FieldId> gpu_fields;     // --query-gpu
  std::vector<core::AppFieldId> app_fields;  // --query-compute-apps
  query::QueryFormat format;
};

using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

int usage_error(const std::string& message) {
  fmt::print(stderr, "{}\n", message);
  return kExitUsage;
}

// Renders one snapshot; returns false if the output could not be written.
void render(std::FILE* out, const QueryPlan& plan, const core::Snapshot& snap, bool first) {
  const bool apps = !plan.app_fields.empty();
  core::CsvStyle style{plan.format.units};
  switch (plan.format.output) {
    case query::QueryOutput::Csv:
    case query::QueryOutput::Markdown: {
      if (first && plan.format.header) {
        fmt::print(out, "{}\n", apps ? terminal::app_csv_header(plan.app_fields) : terminal::gpu_csv_header(plan.gpu_fields));
      }
      auto rows = apps ? terminal::app_csv_rows(snap, plan.app_fields, style) : terminal::gpu_csv_rows(snap, plan.gpu_fields, style);
      for (const auto& row : rows) fmt::print(out, "{}\n", row);
      break;
    }
    case query::QueryOutput::Json: {
      auto rows = apps ? query::app_json_rows(snap, plan.app_fields) : query::gpu_json_rows(snap, plan.gpu_fields);
      fmt::print(out, "{}\n", core::json_text(nlohmann::ordered_json(rows), 2));
      break;
    }
    case query::QueryOutput::Jsonl: {
      auto rows = apps ? query::app_json_rows(snap, plan.app_fields) : query::gpu_json_rows(snap, plan.gpu_fields);
      for (const auto& row : rows) fmt::print(out, "{}\n", core::json_text(row));
      break;
    }
  }
  std::fflush(out);
}

int run_query(const QueryArgs& args, const QueryPlan& plan, const GlobalOptions& global) {
  auto backends = open_backends_for_command(global);
  if (!backends) return kExitNvmlUnavailable;
  sampler::DeadlineSampler sampler(*backends, args.timeout);

  sampler::SampleOptions options;
  if (!plan.app_fields.empty()) {
    options.fields = {core::FieldId::Name, core::FieldId::PciBusId, core::FieldId::Serial, core::FieldId::Uuid};
    options.processes = true;
  } else {
    options.fields = plan.gpu_fields;
  }
  if (!args.ids.empty()) {
    sampler::SampleOptions identity_options;
    identity_options.fields = {core::FieldId::Uuid, core::FieldId::PciBusId};
    auto selected = query::select_devices(args.ids, sampler.sample(identity_options));
    if (!selected) {
      fmt::print(stderr, "{}{}\n", selected.error().message, gpu_id_hint(args.ids, "-l/--interval"));
      return kExitNoDevices;
    }
    options.devices = *selected;
  }

  FilePtr file(nullptr, &std::fclose);
  std::FILE* out = stdout;
  if (!args.filename.empty()) {
    file.reset(std::fopen(args.filename.c_str(), "w"));
    if (!file) {
      fmt::print(stderr, "gpuwatch: cannot write {}: {}\n", args.filename, std::strerror(errno));
      return kExitRuntimeError;
    }
    out = file.get();
  }

  const std::chrono::milliseconds period = args.loop_ms.count() > 0 ? args.loop_ms : args.loop;
  std::optional<sampler::Ticker> ticker;
  if (period.count() > 0) ticker.emplace(period);
  bool failed = false;
  core::Snapshot snap;
  for (long n = 0;; ++n) {
    sampler.sample_into(options, snap);
    if (snap.device_count == 0 || (snap.devices.empty() && options.devices.empty())) {
      fmt::print(stderr, "No devices were found\n");
      return kExitNoDevices;
    }
    render(out, plan, snap, n == 0);
    failed = failed || snap.any_device_failed();
    if (!ticker || (args.count > 0 && n + 1 >= args.count)) break;
    ticker->wait();
  }
  return failed ? kExitPartial : kExitOk;
}

// -l without a value loops every 5 s, as nvidia-smi's -l does; -l 0: once.
core::Result<std::chrono::milliseconds> loop_period(const QueryArgs& args) {
  if (args.loop_option == nullptr || args.loop_option->count() == 0) return std::chrono::milliseconds(0);
  if (args.loop_text.empty()) return kDefaultLoop;
  if (args.loop_text == "0") return std::chrono::milliseconds(0);
  return read_duration_flag("-l/--loop/--interval", args.loop_text, {});
}

// -lms / --loop-ms: nvidia-smi's bare milliseconds, or a duration with its unit (1s).
core::Result<std::chrono::milliseconds> loop_ms_period(const std::string& text) {
  if (text.empty()) return std::chrono::milliseconds(0);
  if (text.find_first_not_of("0123456789") == std::string::npos) return read_duration_flag("-lms/--loop-ms", text + "ms", {});
  return read_duration_flag("-lms/--loop-ms", text, {.hint = "a bare number is milliseconds here, as in nvidia-smi"});
}

int run(QueryArgs args, const GlobalOptions& global) {
  auto loop = loop_period(args);
  if (!loop) return usage_error(loop.error().message);
  args.loop = *loop;
  auto loop_ms = loop_ms_period(args.loop_ms_text);
  if (!loop_ms) return usage_error(loop_ms.error().message);
  args.loop_ms = *loop_ms;
  QueryPlan plan;
  if (!args.format.empty()) {
    auto format = query::parse_query_format(args.format);
    if (!format) return usage_error(format.error().message);
    plan.format = *format;
  }
  if (args.help_gpu) {
    fmt::print("{}", plan.format.output == query::QueryOutput::Markdown ? query::fields_markdown() : query::help_query_gpu_text());
    return kExitOk;
  }
  if (args.help_apps) {
    fmt::print("{}", query::help_query_compute_apps_text());
    return kExitOk;
  }
  if (args.query_gpu.empty() == args.query_apps.empty()) {
    return usage_error("gpuwatch query: give exactly one of --query-gpu=FIELDS or --query-compute-apps=FIELDS "
                       "(see --help-query-gpu).");
  }
  if (args.format.empty()) return usage_error("--format is required, e.g. --format=csv (or json, jsonl).");
  if (plan.format.output == query::QueryOutput::Markdown) return usage_error("--format=md is only for --help-query-gpu.");
  if (args.count < 0) return usage_error("-c/--count takes a positive number.");
  if (args.loop.count() > 0 && args.loop_ms.count() > 0) return usage_error("give -l DURATION or -lms MS, not both.");
  if (!args.query_gpu.empty()) {
    auto fields = query::parse_gpu_fields(args.query_gpu);
    if (!fields) return usage_error(fields.error().message);
    plan.gpu_fields = *fields;
  } else {
    auto fields = query::parse_app_fields(args.query_apps);
    if (!fields) return usage_error(fields.error().message);
    plan.app_fields = *fields;
  }
  return run_query(args, plan, global);
}

}  // namespace

Command add_query_command(CLI::App& app) {
  auto args = std::make_shared<QueryArgs>();
  Command command;
  command.app = app.add_subcommand("query", "nvidia-smi compatible queries: --query-gpu / --query-compute-apps as CSV "
                                            "(or JSON). Field list: --help-query-gpu");
  auto* q = command.app;
  q->add_option("--query-gpu", args->query_gpu, "Comma-separated GPU fields, nvidia-smi names (--help-query-gpu)");
  q->add_option("--query-compute-apps", args->query_apps,
                "Comma-separated process fields, one row per compute process (--help-query-compute-apps)");
  q->add_option("--format", args->format,
                "csv[,noheader][,nounits] as nvidia-smi; or json (an array of row objects) / jsonl (one object per line)");
  q->add_option("-i,--id", args->ids,
                "Only these GPUs: comma list of indices, UUIDs or PCI bus ids; -i is the GPU, as in nvidia-smi "
                "(the interval is -l/--interval)");
  args->loop_option = q->add_option("-l,--loop,--interval", args->loop_text,
                                    "Repeat every DURATION until interrupted: 5 (seconds), 500ms, 1m "
                                    "(-l alone: every 5 s, as nvidia-smi)")
                          ->expected(0, 1)
                          ->type_name("[DURATION]");
  q->add_option("--loop-ms", args->loop_ms_text,
                "Repeat every MS milliseconds (nvidia-smi's -lms is accepted too)")->type_name("MS");
  q->add_option("-c,--count", args->count, "With -l/-lms: stop after N samples (gpuwatch extension)");
  q->add_option("-f,--filename", args->filename, "Write the output to FILE instead of stdout");
  add_timeout_option(*q, args->timeout);
  q->add_flag("--help-query-gpu", args->help_gpu, "List the --query-gpu fields with descriptions (--format=md: docs/fields.md)");
  q->add_flag("--help-query-compute-apps", args->help_apps, "List the --query-compute-apps fields");
  q->footer("Examples:\n"
            "  gpuwatch query --query-gpu=index,name,memory.used,utilization.gpu --format=csv\n"
            "  gpuwatch query --query-gpu=index,temperature.gpu --format=csv,noheader -l 5s -c 12\n"
            "  gpuwatch query --query-compute-apps=pid,process_name,used_memory --format=json\n"
            "  gpuwatch query -i 0 --query-gpu=power.draw --format=csv,nounits   (-i is the GPU here, as in nvidia-smi)");
  command.run = [args](const GlobalOptions& global) { return run(*args, global); };
  return command;
}

}  // namespace gpuwatch::cli
