#include "report/job_block.hpp"

#include "core/sink_text.hpp"
#include <algorithm>
#include <fmt/chrono.h>
#include <fmt/core.h>

#include "core/local_time.hpp"
#include "report/html_charts.hpp"  // html_escape

namespace gpuwatch::report {
namespace {

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
                          summary.value("energy_source", nlohmann::json()).is_string() ? summary["energy_source"].get<std::string>() : "");
    if (summary.value("uses_gpu", true) == false) line += "this job used no GPU";
    auto steps = summary.value("steps", nlohmann::json::object());
    if (steps.value("data_wait_ratio", nlohmann::json()).is_number())
      line += fmt::format(", {:.0f} % of step time waiting for data", steps["data_wait_ratio"].get<double>() * 100);
    out += line + "\n";
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
