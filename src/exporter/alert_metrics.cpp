#include "exporter/alert_metrics.hpp"

#include <set>
#include <tuple>

#include "exporter/text_family.hpp"

namespace gpuwatch::exporter {

void encode_alerts(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out) {
  if (view.alerts.empty()) return;
  // (gpu or -1 for the node, alertname, severity, state): one series each, sorted.
  std::set<std::tuple<long, std::string, std::string, std::string>> series;
  for (const auto& alert : view.alerts) {
    if (alert.state == alerts::AlertState::Resolved) continue;
    long gpu = alert.gpu ? static_cast<long>(*alert.gpu) : -1L;
    if (gpu >= static_cast<long>(labels.size())) continue;
    series.emplace(gpu, alert.rule, alerts::to_string(alert.severity), alerts::to_string(alert.state));
  }
  if (series.empty()) return;
  Family family(out, "gpuwatch_alerts", "gauge",
                "1 for every alert of gpuwatch's local rule engine that is pending or firing (docs/alerts.md); "
                "node alerts have no gpu label");
  for (const auto& [gpu, name, severity, state] : series) {
    std::string l = gpu >= 0 ? labels[static_cast<std::size_t>(gpu)] : std::string();
    add_label(l, "alertname", name);
    add_label(l, "severity", severity);
    add_label(l, "alertstate", state);
    family.sample(l, "1");
  }
}

}  // namespace gpuwatch::exporter
