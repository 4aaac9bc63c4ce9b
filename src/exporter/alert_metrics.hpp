#pragma once
// gpuwatch_alerts{alertname,severity,alertstate,gpu,uuid} 1 for every alert of serve's local
// engine that is pending or firing (like Prometheus' ALERTS series); node alerts have no gpu
// label. From LiveView::alerts.
#include <string>
#include <vector>

#include "live/view.hpp"

namespace gpuwatch::exporter {

void encode_alerts(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out);

}  // namespace gpuwatch::exporter
