#include "diagnose/problem_order.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "diagnose/kinds.hpp"

namespace gpuwatch::diagnose {
namespace problem_order_detail {  // unity builds: names of this file only

bool has_evidence(const Finding& f, const char* key) { return f.evidence.find(key) != f.evidence.end(); }

// A finding another finding of FINDINGS explains: memory almost full on a GPU that leaks.
bool told_by_another(const Finding& f, std::span<const Finding> findings) {
  if (kind_of_id(f.kind) != Kind::MemoryPressure) return false;
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& o) {
    return kind_of_id(o.kind) == Kind::MemoryLeak && o.gpus == f.gpus && o.severity >= Severity::Warning;
  });
}

std::string gpus_words(const std::vector<unsigned>& gpus) {
  if (gpus.empty()) return "The node";
  std::string out = gpus.size() == 1 ? "GPU " : "GPUs ";
  for (std::size_t i = 0; i < gpus.size(); ++i) out += (i ? "," : "") + std::to_string(gpus[i]);
  return out;
}

}  // namespace problem_order_detail

int urgency_rank(const Finding& f) {
  if (problem_order_detail::has_evidence(f, "time_to_oom_s")) return 0;
  const auto kind = kind_of_id(f.kind);
  if (!kind) return 1;  // a kind of a newer build's history
  switch (kind_info(*kind).urgency) {  // kinds.def's Urgency column
    case Urgency::Urgent: return 0;
    case Urgency::UrgentIfCritical: return f.severity == Severity::Critical ? 0 : 1;
    case Urgency::Normal: return 1;
  }
  return 1;
}

std::vector<Finding> most_urgent_first(std::span<const Finding> findings) {
  std::vector<Finding> out(findings.begin(), findings.end());
  std::sort(out.begin(), out.end(), finding_before);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    const auto key = [](const Finding& f) {
      return std::make_tuple(-urgency_rank(f), static_cast<int>(f.severity), f.active, f.impact.has_value(),
                             f.impact.value_or(0.0), f.share.value_or(0.0));
    };
    return key(a) > key(b);
  });
  return out;
}

std::vector<Finding> summary_problems(std::span<const Finding> findings) {
  std::vector<Finding> out;
  std::set<std::string> said;
  for (auto& f : most_urgent_first(findings)) {
    if (f.severity == Severity::Info || problem_order_detail::told_by_another(f, findings)) continue;
    if (!said.insert(problem_order_detail::gpus_words(f.gpus) + f.kind + f.summary).second) continue;
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<std::string> problem_sentences(std::span<const Finding> findings) {
  std::vector<std::string> out;
  for (const auto& f : summary_problems(findings)) {
    std::string text = problem_order_detail::gpus_words(f.gpus) + ": " + (f.summary.empty() ? f.kind : f.summary);
    if (f.job) text += " (" + f.job->label + ")";
    if (std::find(out.begin(), out.end(), text + ".") == out.end()) out.push_back(text + ".");
  }
  return out;
}

}  // namespace gpuwatch::diagnose
