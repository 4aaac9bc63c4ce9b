#include "report/render.hpp"

#include "core/sink_text.hpp"
#include "report/job_block.hpp"
#include "report/owner_block.hpp"
#include "core/json_text.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/time_spec.hpp"
#include "jobs/limiting_resource.hpp"
#include "report/summary.hpp"
#include "store/process_commands.hpp"  // clip_command

namespace gpuwatch::report {
namespace {

using nlohmann::ordered_json;

std::string time_text(std::int64_t ms) {
  return core::format_iso8601(std::chrono::system_clock::time_point(std::chrono::milliseconds(ms)));
}

template <typename T>
ordered_json or_null(const std::optional<T>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

std::string fixed(const std::optional<double>& value, int decimals, const char* unit) {
  if (!value) return "N/A";
  return fmt::format("{:.{}f}{}", *value, decimals, unit);
}

std::string mib(const std::optional<std::uint64_t>& bytes) {
  return bytes ? fmt::format("{} MiB", *bytes / (1024 * 1024)) : "N/A";
}

std::string aligned(const std::vector<std::vector<std::string>>& given) {
  // GPU names, users and commands as a terminal may show them (issue 31).
  std::vector<std::vector<std::string>> rows = given;
  for (auto& row : rows) {
    for (auto& cell : row) cell = core::terminal_text(cell);
  }
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

std::string gpu_label(const store::GpuSummary& s) {
  return s.gpu.index ? std::to_string(*s.gpu.index) : std::string("?");
}

std::string range_text(const store::HistoryReport& report, TimeStyle style) {
  std::int64_t first = 0, last = 0;
  bool any = false;
  for (const auto& s : report.gpus) {
    first = any ? std::min(first, s.first_ms) : s.first_ms;
    last = any ? std::max(last, s.last_ms) : s.last_ms;
    any = true;
  }
  if (!any) return "no samples";
  return report::span_text(first, last, style) + " (" + zone_text(first, style) + ")";
}

// A GPU's findings in one cell: "none", "1 warning", "3, worst critical".
std::string gpu_findings_cell(const std::optional<unsigned>& index, const ReportFindings& findings) {
  if (!index) return "?";
  std::size_t count = 0;
  std::optional<diagnose::Severity> worst;
  for (const auto& f : findings.findings) {
    if (std::find(f.gpus.begin(), f.gpus.end(), *index) == f.gpus.end()) continue;
    ++count;
    if (!worst || f.severity > *worst) worst = f.severity;
  }
  if (count == 0) return "none";
  if (count == 1) return fmt::format("1 {}", diagnose::to_string(*worst));
  return fmt::format("{}, worst {}", count, diagnose::to_string(*worst));
}

std::vector<std::vector<std::string>> gpu_rows(const store::HistoryReport& report, const ReportFindings& findings) {
  std::vector<std::vector<std::string>> rows = {{"gpu", "name", "samples", "util mean", "util p95", "idle",
                                                 "peak memory", "energy", "power mean", "max temp"}};
  // A vendor column after "gpu" only when some GPU is not NVIDIA's (issue 28): a report of
  // NVIDIA GPUs alone reads as it always did.
  const bool name_vendors = std::any_of(report.gpus.begin(), report.gpus.end(), [](const store::GpuSummary& s) {
    return s.gpu.vendor != core::Vendor::Nvidia;
  });
  if (name_vendors) rows[0].insert(rows[0].begin() + 1, "vendor");
  if (findings.diagnosed) rows[0].push_back("findings");
  for (const auto& s : report.gpus) {
    rows.push_back({gpu_label(s), s.gpu.name.value_or("?"), std::to_string(s.samples),
                    fixed(s.mean_utilization_percent, 1, " %"),
                    (s.p95_approximate && s.p95_utilization_percent ? "~" : "") +
                        fixed(s.p95_utilization_percent, 0, " %"),
                    s.idle_share ? fmt::format("{:.1f} %", *s.idle_share * 100) : "N/A",
                    mib(s.peak_memory_used_bytes), energy_text(s.energy_kwh, s.energy_source == "estimated"), fixed(s.mean_power_w, 1, " W"),
                    temperature_text(s.max_temperature_c)});
    if (name_vendors) rows.back().insert(rows.back().begin() + 1, core::to_string(s.gpu.vendor));
    if (findings.diagnosed) rows.back().push_back(gpu_findings_cell(s.gpu.index, findings));
  }
  return rows;
}

std::vector<std::vector<std::string>> throttle_rows(const store::HistoryReport& report) {
  std::vector<std::vector<std::string>> rows = {{"gpu", "reason", "time", "share"}};
  for (const auto& s : report.gpus) {
    if (!s.throttle_mask_recorded) {
      rows.push_back({gpu_label(s), "N/A (not recorded)", "", ""});
      continue;
    }
    if (s.throttling.empty()) rows.push_back({gpu_label(s), "none", "0s", "0.0 %"});
    for (const auto& t : s.throttling) {
      rows.push_back({gpu_label(s), t.reason, report_duration_text(t.seconds),
                      fmt::format("{:.1f} %", 100.0 * static_cast<double>(t.samples) / static_cast<double>(s.samples))});
    }
  }
  return rows;
}

std::vector<std::vector<std::string>> process_rows(const store::HistoryReport& report, TimeStyle style) {
  std::vector<std::vector<std::string>> rows = {
      {"gpu", "pid", "user", "name", "peak memory", "run time", "first seen", "command"}};
  for (const auto& p : report.processes) {
    const std::string name = p.name.empty() ? "?" : p.name;
    // The recorded command line (schema 11), its start; else the name (older files, --no-record-commands).
    rows.push_back({p.gpu_index ? std::to_string(*p.gpu_index) : "?", std::to_string(p.pid), p.user.value_or("?"), name,
                    mib(p.max_used_memory_bytes),
                    report_duration_text(static_cast<double>(p.last_seen_ms - p.first_seen_ms) / 1000.0),
                    report::time_text(p.first_seen_ms, style),
                    store::clip_command(p.command.value_or(name), store::kCommandShownBytes)});
  }
  return rows;
}

}  // namespace

std::string report_duration_text(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f}s", seconds);
  auto whole = static_cast<std::int64_t>(seconds + 0.5);
  if (whole < 3600) return fmt::format("{}m {:02}s", whole / 60, whole % 60);
  return fmt::format("{}h {:02}m", whole / 3600, (whole % 3600) / 60);
}

std::string report_sources_note(const store::HistoryReport& report) {
  if (!report.rollup_1m && !report.rollup_1h) return {};
  std::vector<std::string> parts;
  if (report.rollup_1h) parts.push_back("1-hour rollups from " + time_text(report.rollup_1h->first_ms));
  if (report.rollup_1m) parts.push_back("1-minute rollups from " + time_text(report.rollup_1m->first_ms));
  std::string note = "Older history comes from " + parts[0] + (parts.size() > 1 ? " and " + parts[1] : "") + ".";
  if (report.raw) note += " Raw samples start at " + time_text(report.raw->first_ms) + ":";
  else note += " No raw samples in the range:";
  note += " before that, p95 utilization is approximate (~, a percentile of the rollups' means) and processes "
          "are not known (they are kept as long as raw samples).";
  return note;
}

std::string report_summary_text(const store::HistoryReport& report, const ReportFindings& findings, TimeStyle style) {
  const auto lines = report_summary(report, findings, style);
  if (lines.empty()) return "";
  std::string out = "Summary:\n";
  for (const auto& line : lines) out += "  - " + core::terminal_text(line.text) + "\n";
  return out;
}

std::string report_tables_text(const store::HistoryReport& report, const ReportFindings& findings, TimeStyle style) {
  if (report.gpus.empty()) return "";
  std::string out = "\n" + aligned(gpu_rows(report, findings));
  out += fmt::format("\nidle: utilization below {:.0f} %.", store::kIdleBelowPercent);
  if (std::any_of(report.gpus.begin(), report.gpus.end(), [](const auto& s) { return s.energy_source == "estimated"; }))
    out += " ~energy: estimated from power samples (no energy counter).";
  out += " Time with clocks held back, by reason:\n";
  out += aligned(throttle_rows(report));
  out += "\nProcesses seen:\n";
  out += report.processes.empty() ? std::string("none\n") : aligned(process_rows(report, style));
  return out;
}

std::string render_report_text(const store::HistoryReport& report, const ReportFindings& findings, TimeStyle style) {
  std::string out = "gpuwatch report: " + range_text(report, style) + "\n";
  if (report.job) out += job_block_text(*report.job);  // report --job
  if (report.owner) out += owner_block_text(*report.owner, style);  // report --slurm-job, --pod
  if (const auto note = store::provenance_note(report.provenance); !note.empty()) out += "NOTE: " + core::terminal_text(note) + "\n";
  if (const auto note = report_sources_note(report); !note.empty()) out += note + "\n";
  if (!report.gpus.empty()) out += "\n" + report_summary_text(report, findings, style);
  // Which resource limited the GPUs, from the findings' causes (issue 25); nothing when none names one.
  if (findings.diagnosed && !report.gpus.empty()) {
    if (const auto limit = jobs::limiting_resource_text(findings.findings); !limit.empty()) out += "\nLimited by: " + limit + "\n";
  }
  if (findings.diagnosed && !report.gpus.empty()) out += "\n" + report_findings_text(findings, kReportFindingsShown, style);
  if (report.gpus.empty()) return out + "\n";
  return out + report_tables_text(report, findings, style);
}

std::string render_report_json(const store::HistoryReport& report, const ReportFindings& findings) {
  ordered_json root = ordered_json::object();
  root["since"] = report.since_ms ? ordered_json(time_text(*report.since_ms)) : ordered_json(nullptr);
  root["until"] = report.until_ms ? ordered_json(time_text(*report.until_ms)) : ordered_json(nullptr);
  if (report.job) root["job"] = job_block_json(*report.job);  // report --job
  if (report.owner) root["owner"] = owner_block_json(*report.owner);  // report --slurm-job, --pod
  if (findings.diagnosed) {
    // issue 10: findings first, worst first, each as `gpuwatch diagnose --json` (docs/diagnose.md);
    // diagnosis: the raw samples they come from.
    root["findings"] = report_findings_json(findings.findings);
    // Which resource limited the GPUs (issue 25), as `run --summary-json`'s limited_by; null: none named.
    root["limited_by"] = ordered_json(jobs::limiting_resource_json(findings.findings));
    root["diagnosis"] = {{"samples", findings.samples},
                         {"first", findings.first_ms ? ordered_json(time_text(*findings.first_ms)) : ordered_json(nullptr)},
                         {"last", findings.last_ms ? ordered_json(time_text(*findings.last_ms)) : ordered_json(nullptr)}};
  }
  root["idle_below_percent"] = store::kIdleBelowPercent;
  // true: some of the range came from gpuwatch's simulated driver; null: the database does
  // not say (written before schema 4). data_sources: each source with its span.
  root["simulated"] = report.provenance.known ? ordered_json(report.provenance.simulated) : ordered_json(nullptr);
  ordered_json data_sources = ordered_json::array();
  for (const auto& record : report.data_sources) {
    data_sources.push_back({{"simulated", record.source.simulated},
                            {"scenario", record.source.simulated ? ordered_json(record.source.scenario) : ordered_json(nullptr)},
                            // `gpuwatch import`: the log file the samples were read from (else null)
                            {"imported_from", record.source.imported ? ordered_json(record.source.scenario) : ordered_json(nullptr)},
                            {"first", time_text(record.first_ms)},
                            {"last", time_text(record.last_ms)}});
  }
  root["data_sources"] = std::move(data_sources);
  ordered_json sources = ordered_json::object();
  for (const auto& [name, span] : {std::pair{"raw", &report.raw}, std::pair{"rollup_1m", &report.rollup_1m},
                                   std::pair{"rollup_1h", &report.rollup_1h}}) {
    sources[name] = *span ? ordered_json{{"first", time_text((*span)->first_ms)}, {"last", time_text((*span)->last_ms)}}
                          : ordered_json(nullptr);
  }
  root["sources"] = std::move(sources);
  const bool rollups = report.rollup_1m || report.rollup_1h;
  root["p95_approximate_before"] =
      rollups ? (report.raw ? ordered_json(time_text(report.raw->first_ms)) : ordered_json("all")) : ordered_json(nullptr);
  ordered_json gpus = ordered_json::array();
  for (const auto& s : report.gpus) {
    ordered_json g = ordered_json::object();
    g["index"] = or_null(s.gpu.index);
    g["uuid"] = or_null(s.gpu.uuid);
    g["name"] = or_null(s.gpu.name);
    g["vendor"] = core::to_string(s.gpu.vendor);  // issue 28: "nvidia", "amd", "intel"
    g["samples"] = s.samples;
    g["rollup_samples"] = s.rollup_samples;
    g["first_sample"] = time_text(s.first_ms);
    g["last_sample"] = time_text(s.last_ms);
    g["sample_interval_s"] = or_null(s.sample_interval_s);
    g["utilization_gpu_mean_percent"] = or_null(s.mean_utilization_percent);
    g["utilization_gpu_p95_percent"] = or_null(s.p95_utilization_percent);
    g["utilization_gpu_p95_approximate"] = s.p95_approximate;
    g["idle_share"] = or_null(s.idle_share);
    g["memory_used_peak_bytes"] = or_null(s.peak_memory_used_bytes);
    g["memory_total_bytes"] = or_null(s.memory_total_bytes);
    g["power_draw_mean_w"] = or_null(s.mean_power_w);
    g["power_draw_max_w"] = or_null(s.max_power_w);
    g["energy_kwh"] = or_null(s.energy_kwh);
    g["energy_source"] = s.energy_source.empty() ? ordered_json(nullptr) : ordered_json(s.energy_source);
    g["temperature_gpu_max_c"] = or_null(s.max_temperature_c);
    if (findings.diagnosed) {
      const auto worst = worst_severity_by_gpu(findings.findings);
      const auto it = s.gpu.index ? worst.find(*s.gpu.index) : worst.end();
      g["worst_finding"] = it != worst.end() ? ordered_json(diagnose::to_string(it->second)) : ordered_json(nullptr);
    }
    if (s.throttle_mask_recorded) {
      ordered_json throttling = ordered_json::object();
      for (const auto& t : s.throttling) throttling[t.reason] = {{"seconds", t.seconds}, {"samples", t.samples}};
      g["throttling"] = throttling;
    } else {
      g["throttling"] = nullptr;
    }
    gpus.push_back(std::move(g));
  }
  root["gpus"] = std::move(gpus);
  ordered_json processes = ordered_json::array();
  for (const auto& p : report.processes) {
    ordered_json row = ordered_json::object();
    row["gpu_index"] = or_null(p.gpu_index);
    row["gpu_uuid"] = or_null(p.gpu_uuid);
    row["pid"] = p.pid;
    row["user"] = or_null(p.user);
    row["name"] = p.name;
    row["command"] = or_null(p.command);  // null: not recorded (older file, --no-record-commands)
    row["memory_used_peak_bytes"] = or_null(p.max_used_memory_bytes);
    row["run_time_s"] = static_cast<double>(p.last_seen_ms - p.first_seen_ms) / 1000.0;
    row["first_seen"] = time_text(p.first_seen_ms);
    row["last_seen"] = time_text(p.last_seen_ms);
    processes.push_back(std::move(row));
  }
  root["processes"] = std::move(processes);
  return core::json_text(root, 2) + "\n";
}

}  // namespace gpuwatch::report
