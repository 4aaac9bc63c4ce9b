#include "history/jobs_render.hpp"

#include <fmt/chrono.h>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "core/json_text.hpp"
#include "terminal/text_table.hpp"

namespace gpuwatch::history {
namespace {

nlohmann::json parsed_or_null(const std::string& text) {
  if (text.empty()) return nullptr;
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  return parsed.is_discarded() ? nlohmann::json() : parsed;
}

std::string iso_time(std::int64_t ms) {
  std::time_t t = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  return fmt::format("{:%Y-%m-%dT%H:%M:%S%z}", tm);
}

std::string command_line(const std::string& command_json) {
  auto parsed = parsed_or_null(command_json);
  if (!parsed.is_array()) return command_json;
  std::string out;
  for (const auto& w : parsed)
    if (w.is_string()) out += (out.empty() ? "" : " ") + w.get<std::string>();
  return out;
}

std::string gpu_list(const std::string& gpus_json) {
  auto parsed = parsed_or_null(gpus_json);
  std::string out;
  if (!parsed.is_array()) return out;
  for (const auto& g : parsed) {
    if (!g.is_object() || !g.contains("index")) continue;
    out += (out.empty() ? "" : ",") + g["index"].dump();
    if (g.contains("mig_uuids") && g["mig_uuids"].is_array() && !g["mig_uuids"].empty())
      out += fmt::format("(MIG x{})", g["mig_uuids"].size());
  }
  return out;
}

std::string wall_text(double seconds) {
  auto s = static_cast<long long>(seconds);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, s % 3600 / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

std::optional<double> summary_number(const nlohmann::json& summary, const char* key) {
  if (!summary.is_object() || !summary.contains(key) || !summary[key].is_number()) return std::nullopt;
  return summary[key].get<double>();
}

}  // namespace

core::Result<JobsFormat> parse_jobs_format(const std::string& text) {
  if (text == "table") return JobsFormat::Table;
  if (text == "csv") return JobsFormat::Csv;
  if (text == "json") return JobsFormat::Json;
  return core::make_error("--jobs takes --format table, csv or json, not '" + text + "'");
}

std::string render_jobs(const std::vector<store::JobRow>& jobs, JobsFormat format, std::chrono::system_clock::time_point now) {
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  if (format == JobsFormat::Json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& j : jobs) {
      nlohmann::ordered_json row;
      row["id"] = j.id;
      row["name"] = j.name;
      row["command"] = parsed_or_null(j.command);
      row["user"] = j.user;
      row["host"] = j.host;
      row["start"] = iso_time(j.start_ms);
      row["end"] = j.end_ms ? nlohmann::ordered_json(iso_time(*j.end_ms)) : nlohmann::ordered_json();
      row["start_ms"] = j.start_ms;
      row["end_ms"] = j.end_ms ? nlohmann::ordered_json(*j.end_ms) : nlohmann::ordered_json();
      row["exit_status"] = j.exit_status ? nlohmann::ordered_json(*j.exit_status) : nlohmann::ordered_json();
      if (j.monitor_lost) row["status"] = "monitor lost";  // history/lost_monitors.hpp
      row["gpus"] = parsed_or_null(j.gpus);
      row["summary"] = parsed_or_null(j.summary);
      out.push_back(std::move(row));
    }
    return core::json_text(out, 2) + "\n";  // a name or command may not be UTF-8 (issue 31)
  }
  std::vector<std::vector<std::string>> rows;
  // cost and CO2 where `run` was given rates (issue 29, docs/energy.md); CSV has the currency apart.
  if (format == JobsFormat::Csv)
    rows.push_back({"id", "start", "wall", "exit", "gpus", "gpu_hours", "energy_wh", "cost", "currency", "co2_g", "user", "name", "command"});
  else
    rows.push_back({"id", "start", "wall", "exit", "gpus", "gpu_hours", "energy_wh", "cost", "co2_g", "user", "name", "command"});
  for (const auto& j : jobs) {
    auto summary = parsed_or_null(j.summary);
    const double wall = static_cast<double>(j.end_ms.value_or(now_ms) - j.start_ms) / 1000.0;
    auto hours = summary_number(summary, "gpu_hours");
    auto energy = summary_number(summary, "energy_wh");
    std::string gpus = gpu_list(j.gpus);
    const auto job_energy = summary.is_object() ? summary.value("energy", nlohmann::json()) : nlohmann::json();
    auto cost = summary_number(job_energy, "cost");
    auto co2 = summary_number(job_energy, "co2_g");
    const std::string currency =
        job_energy.is_object() && job_energy.value("currency", nlohmann::json()).is_string() ? job_energy["currency"].get<std::string>() : "";
    const std::string none = format == JobsFormat::Csv ? "" : "-";
    std::vector<std::string> energy_cells;
    if (format == JobsFormat::Csv)
      energy_cells = {cost ? fmt::format("{:.6g}", *cost) : none, cost ? currency : none, co2 ? fmt::format("{:.6g}", *co2) : none};
    else
      energy_cells = {cost ? fmt::format("{:.4g} {}", *cost, currency) : none, co2 ? fmt::format("{:.4g}", *co2) : none};
    rows.push_back({std::to_string(j.id), iso_time(j.start_ms),
                    format == JobsFormat::Csv ? fmt::format("{:.3f}", wall) : wall_text(wall) + (j.end_ms ? "" : "+"),
                    j.exit_status      ? std::to_string(*j.exit_status)
                    : j.monitor_lost   ? std::string("monitor lost")  // its `gpuwatch run` died (lost_monitors.hpp)
                    : format == JobsFormat::Csv ? "" : "-",
                    gpus.empty() && format == JobsFormat::Table ? "none" : gpus,
                    hours ? fmt::format("{:.3f}", *hours) : (format == JobsFormat::Csv ? "" : "-"),
                    energy ? fmt::format("{:.2f}", *energy) : (format == JobsFormat::Csv ? "" : "-")});
    rows.back().insert(rows.back().end(), energy_cells.begin(), energy_cells.end());
    rows.back().insert(rows.back().end(), {j.user, j.name, command_line(j.command)});
  }
  if (format == JobsFormat::Csv) {
    std::string out;
    for (const auto& row : rows) {
      for (std::size_t i = 0; i < row.size(); ++i) out += (i ? "," : "") + terminal::csv_cell(row[i]);
      out += "\n";
    }
    return out;
  }
  if (jobs.empty()) return "No jobs recorded: run one with `gpuwatch run -- COMMAND`\n";
  return terminal::text_table(rows, 2);
}

}  // namespace gpuwatch::history
