#include "report/owner_block.hpp"

#include "core/sink_text.hpp"
#include <algorithm>
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <vector>

#include "core/time_spec.hpp"
#include "report/html_charts.hpp"  // html_escape

namespace gpuwatch::report {
namespace {

std::string iso_time(std::int64_t ms) {
  return core::format_iso8601(std::chrono::system_clock::time_point(std::chrono::milliseconds(ms)));
}

// "user alice", "users alice, bob"; "" when LIST is empty.
std::string listed(const char* one, const char* many, const std::vector<std::string>& list) {
  if (list.empty()) return "";
  std::vector<std::string> shown;  // pod, container and user names as a terminal may show them (issue 31)
  for (const auto& item : list) shown.push_back(core::terminal_text(item));
  return fmt::format("{} {}", list.size() == 1 ? one : many, fmt::join(shown, ", "));
}

}  // namespace

std::string owner_block_text(const store::OwnerWindow& owner, TimeStyle style) {
  std::vector<std::string> details;
  for (auto part : {listed("user", "users", owner.users), listed("step", "steps", owner.steps),
                    listed("namespace", "namespaces", owner.namespaces),
                    listed("container", "containers", owner.containers)}) {
    if (!part.empty()) details.push_back(std::move(part));
  }
  std::vector<unsigned> gpus;
  for (const auto& g : owner.gpus) gpus.push_back(g.index);
  std::string out = core::terminal_text(owner.title);
  if (!details.empty()) out += fmt::format(" ({})", fmt::join(details, "; "));
  out += fmt::format(": GPU{} {} ({} process{})\n", gpus.size() == 1 ? "" : "s", fmt::join(gpus, ", "),
                     owner.processes.size(), owner.processes.size() == 1 ? "" : "es");
  out += "  " + span_text(owner.first_ms, owner.last_ms, style) + " " + zone_text(owner.first_ms, style) + "\n";
  return out;
}

nlohmann::ordered_json owner_block_json(const store::OwnerWindow& owner) {
  nlohmann::ordered_json j;
  j["kind"] = owner.kind;
  j["title"] = owner.title;
  j["first"] = iso_time(owner.first_ms);
  j["last"] = iso_time(owner.last_ms);
  j["first_ms"] = owner.first_ms;
  j["last_ms"] = owner.last_ms;
  j["gpus"] = nlohmann::ordered_json::array();
  for (const auto& g : owner.gpus) {
    j["gpus"].push_back({{"index", g.index}, {"uuid", g.uuid ? nlohmann::ordered_json(*g.uuid) : nlohmann::ordered_json()}});
  }
  j["processes"] = nlohmann::ordered_json::array();
  for (const auto& p : owner.processes) j["processes"].push_back({{"gpu", p.gpu_index}, {"pid", p.pid}});
  j["users"] = owner.users;
  j["steps"] = owner.steps;
  j["namespaces"] = owner.namespaces;
  j["containers"] = owner.containers;
  return j;
}

std::string owner_block_html(const store::OwnerWindow& owner, TimeStyle style) {
  std::string text = owner_block_text(owner, style);
  std::string out = "<section class=\"job\"><h2>" + html_escape(text.substr(0, text.find('\n'))) + "</h2>\n<pre>" +
                    html_escape(text.substr(text.find('\n') + 1)) + "</pre></section>\n";
  nlohmann::json marks = {{"start_ms", owner.first_ms}, {"end_ms", owner.last_ms}};
  return out + "<script type=\"application/json\" id=\"job-boundaries\">" + marks.dump() + "</script>\n";
}

void restrict_to_owner(store::HistoryReport& report, const store::OwnerWindow& owner) {
  std::erase_if(report.gpus, [&](const store::GpuSummary& g) { return !owner.holds(g.gpu.uuid, g.gpu.index.value_or(~0u)); });
  std::erase_if(report.processes, [&](const store::ProcessSummary& p) {
    return !owner.ran(p.gpu_uuid, p.gpu_index.value_or(~0u), p.pid);
  });
  report.owner = owner;
}

}  // namespace gpuwatch::report
