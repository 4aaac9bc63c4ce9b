#include "diagnose/finding_text.hpp"

#include "core/sink_text.hpp"
#include "diagnose/finding_groups.hpp"
#include <fmt/format.h>

#include <algorithm>

namespace gpuwatch::diagnose {

namespace {

std::string gpu_list(const std::vector<unsigned>& gpus) {
  if (gpus.empty()) return "node";
  std::string out = gpus.size() == 1 ? "GPU " : "GPUs ";
  for (std::size_t i = 0; i < gpus.size(); ++i) out += (i ? "," : "") + std::to_string(gpus[i]);
  return out;
}

std::string upper(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return text;
}

}  // namespace

std::vector<Finding> worst_first(std::span<const Finding> findings) {
  std::vector<Finding> out(findings.begin(), findings.end());
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    if (a.severity != b.severity) return a.severity > b.severity;
    if (a.gpus != b.gpus) return a.gpus < b.gpus;
    return a.start < b.start;
  });
  return out;
}

std::string findings_text(std::span<const Finding> findings,
                          const std::function<std::string(Severity, const std::string&)>& paint_severity,
                          bool with_episodes) {
  std::string out;
  for (const auto& f : worst_first(findings)) {
    std::string word = upper(to_string(f.severity));
    std::string padded = fmt::format("{:<8}", word);
    out += fmt::format("{} {:<8} {}{}\n", paint_severity ? paint_severity(f.severity, padded) : padded, gpu_list(f.gpus),
                       core::terminal_text(f.summary.empty() ? f.kind : f.summary), f.active ? "" : "  (ended)");
    // A finding may quote a process's command or a GPU's name: shown visibly (issue 31).
    if (!f.detail.empty()) out += fmt::format("         {}\n", core::terminal_text(f.detail));
    if (f.impact) out += fmt::format("         impact: about {:.0f} % of the GPU's time or throughput lost\n", *f.impact * 100);
    for (const auto& advice : f.advice) out += fmt::format("         try: {}\n", core::terminal_text(advice));
    out += fmt::format("         kind: {}\n", f.kind);
    // A grouped finding (finding_groups.hpp): its episodes, one line each, or how to list them.
    if (with_episodes && !f.episodes.empty()) {
      out += fmt::format("         episodes ({}):\n", f.episodes.size());
      for (const auto& line : episode_lines(f)) out += fmt::format("           {}\n", line);
    } else if (f.episodes.size() > 1) {
      out += fmt::format("         episodes: {} (--episodes lists them)\n", f.episodes.size());
    }
    out += "\n";
  }
  return out;
}

}  // namespace gpuwatch::diagnose
