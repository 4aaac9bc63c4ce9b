#include "report/job_block.hpp"

#include "core/sink_text.hpp"
#include <algorithm>
#include <fmt/chrono.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <optional>
#include <vector>

#include "core/local_time.hpp"
#include "report/html_charts.hpp"  // html_escape

namespace gpuwatch::report {
namespace {

// A stored summary's energy source; summaries recorded before issue 29's wording say
// "integrated_power" for what is now "estimated".
std::string energy_source_word(const nlohmann::json& source) {
  if (!source.is_string()) return "";
  const auto word = source.get<std::string>();
  return word == "integrated_power" ? "estimated" : word;
}

std::string command_line(const std::string& command_json) {
  auto parsed = nlohmann::json::parse(command_json, nullptr, false);
  if (!parsed.is_array()) return command_json;
  std::string out;
  for (const auto& word : parsed) {
    if (!word.is_string()) continue;
    out += (out.empty() ? "" : " ") + word.get<std::string>();
  }
  return out;
}

nlohmann::json parsed_or_null(const std::string& text) {
  if (text.empty()) return nullptr;
  auto parsed = nlohmann::json::parse(text, nullptr, false);
  return parsed.is_discarded() ? nlohmann::json() : parsed;
}

std::optional<double> energy_number(const nlohmann::json& object, const char* key) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number()) return std::nullopt;
  return object[key].get<double>();
}

// The energy `gpuwatch run` stored (issue 29, docs/energy.md): per step, the waste split, cost and
// CO2 with their sources. Nothing for a job recorded before it, or without energy.
std::string energy_lines(const nlohmann::json& energy) {
  if (!energy.is_object()) return "";
  std::string out;
  const auto steps = energy.value("steps", nlohmann::json::object());
  const auto per_step = steps.value("joules_per_step", nlohmann::json());
  if (auto median = energy_number(per_step, "median"))
    out += fmt::format("  energy per step: median {:.3g} J (p10 {:.3g}, p90 {:.3g})\n", *median,
                       energy_number(per_step, "p10").value_or(0), energy_number(per_step, "p90").value_or(0));
  const auto waste = energy.value("waste", nlohmann::json::object());
  auto share = [&](const char* key) {
    auto v = energy_number(waste, key);
    return v ? fmt::format("{:.1f} %", *v * 100) : std::string("n/a");
  };
  if (waste.is_object() && !waste.empty())
    out += fmt::format("  energy wasted: {} idle with memory held, {} throttled, {} while a warning finding was active\n",
                       share("idle_memory_held_share"), share("throttled_share"), share("finding_active_share"));
  std::vector<std::string> parts;
  if (auto cost = energy_number(energy, "cost"))
    parts.push_back(fmt::format("cost {:.4g} {}", *cost,
                                energy.value("currency", nlohmann::json()).is_string() ? energy["currency"].get<std::string>() : ""));
  if (auto co2 = energy_number(energy, "co2_g")) parts.push_back(fmt::format("CO2 {:.4g} g", *co2));
  if (!parts.empty()) {
    std::vector<std::string> sources;
    for (const auto& s : energy.value("sources", nlohmann::json::array()))
      if (s.is_string()) sources.push_back(core::terminal_text(s.get<std::string>()));
    out += fmt::format("  {} ({})\n", fmt::join(parts, ", "), fmt::join(sources, "; "));
  }
  return out;
}

}  // namespace

std::string job_block_text(const store::JobRow& job) {
  // The name, command, user and host as a terminal may show them (issue 31).
  std::string out = fmt::format("Job {}: {} ({}) by {} on {}\n", job.id, core::terminal_text(job.name),
                                core::terminal_text(command_line(job.command)), core::terminal_text(job.user),
                                core::terminal_text(job.host));
  out += fmt::format("  {} to {}", core::format_local_time(job.start_ms), job.end_ms ? core::format_local_time(*job.end_ms) : "(no end recorded)");
  out += job.exit_status ? fmt::format(", exit {}\n", *job.exit_status) : std::string("\n");
  auto summary = parsed_or_null(job.summary);
  if (summary.is_object()) {
    std::string line = "  ";
    if (summary.value("gpu_hours", nlohmann::json()).is_number())
      line += fmt::format("{:.3f} GPU-hours", summary["gpu_hours"].get<double>());
    if (summary.value("energy_wh", nlohmann::json()).is_number())
      line += fmt::format(", {:.2f} Wh ({})", summary["energy_wh"].get<double>(),
                          energy_source_word(summary.value("energy_source", nlohmann::json())));
    if (summary.value("uses_gpu", true) == false) line += "this job used no GPU";
    auto steps = summary.value("steps", nlohmann::json::object());
    if (steps.value("data_wait_ratio", nlohmann::json()).is_number())
      line += fmt::format(", {:.0f} % of step time waiting for data", steps["data_wait_ratio"].get<double>() * 100);
    out += line + "\n";
    out += energy_lines(summary.value("energy", nlohmann::json()));
  }
  return out;
}

nlohmann::ordered_json job_block_json(const store::JobRow& job) {
  nlohmann::ordered_json j;
  j["id"] = job.id;
  j["name"] = job.name;
  j["command"] = parsed_or_null(job.command);
  j["user"] = job.user;
  j["host"] = job.host;
  j["start_ms"] = job.start_ms;
  j["end_ms"] = job.end_ms ? nlohmann::ordered_json(*job.end_ms) : nlohmann::ordered_json();
  j["exit_status"] = job.exit_status ? nlohmann::ordered_json(*job.exit_status) : nlohmann::ordered_json();
  j["gpus"] = parsed_or_null(job.gpus);
  j["summary"] = parsed_or_null(job.summary);
  return j;
}

std::string job_block_html(const store::JobRow& job) {
  std::string text = job_block_text(job);
  std::string out = "<section class=\"job\"><h2>" + html_escape(text.substr(0, text.find('\n'))) + "</h2>\n<pre>" +
                    html_escape(text.substr(text.find('\n') + 1)) + "</pre></section>\n";
  nlohmann::json marks = {{"start_ms", job.start_ms},
                          {"end_ms", job.end_ms ? nlohmann::json(*job.end_ms) : nlohmann::json()}};
  std::string data = marks.dump();  // numbers only: nothing to escape inside <script>
  return out + "<script type=\"application/json\" id=\"job-boundaries\">" + data + "</script>\n";
}

}  // namespace gpuwatch::report

namespace gpuwatch::report {

JobGpus job_gpus(const store::JobRow& job) {
  JobGpus out;
  auto parsed = nlohmann::json::parse(job.gpus, nullptr, false);
  if (!parsed.is_array()) return out;
  for (const auto& g : parsed) {
    if (!g.is_object()) continue;
    if (g.contains("uuid") && g["uuid"].is_string()) out.uuids.push_back(g["uuid"].get<std::string>());
    if (g.contains("index") && g["index"].is_number_unsigned()) out.indices.push_back(g["index"].get<unsigned>());
  }
  return out;
}

void restrict_to_job(store::HistoryReport& report, const store::JobRow& job) {
  const JobGpus gpus = job_gpus(job);
  auto of_job = [&](const std::optional<std::string>& uuid) {
    return uuid && std::find(gpus.uuids.begin(), gpus.uuids.end(), *uuid) != gpus.uuids.end();
  };
  std::erase_if(report.gpus, [&](const store::GpuSummary& g) { return !of_job(g.gpu.uuid); });
  std::erase_if(report.processes, [&](const store::ProcessSummary& p) { return !of_job(p.gpu_uuid); });
  report.job = job;
}

}  // namespace gpuwatch::report
