#include "exporter/finding_metrics.hpp"

#include <set>
#include <tuple>

#include "exporter/text_family.hpp"

namespace gpuwatch::exporter {

void encode_findings(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  if (view.findings.empty()) return;
  // Two findings of one kind on one GPU (two leaking processes) are one series.
  std::set<std::tuple<std::string, std::string, unsigned>> series;
  for (const auto& finding : view.findings) {
    for (unsigned gpu : finding.gpus) {
      if (gpu < labels.size()) series.emplace(finding.kind, diagnose::to_string(finding.severity), gpu);
    }
  }
  if (series.empty()) return;
  Family family(out, "gpuwatch_finding", "gauge",
                "1 while gpuwatch's diagnosis has an active finding of this kind and severity on the GPU "
                "(docs/diagnose.md lists the kinds)");
  for (const auto& [kind, severity, gpu] : series) {
    std::string l = labels[gpu];
    add_label(l, "kind", kind);
    add_label(l, "severity", severity);
    family.sample(l, "1");
  }
}

}  // namespace gpuwatch::exporter
