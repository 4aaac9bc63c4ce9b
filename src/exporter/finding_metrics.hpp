#pragma once
// gpuwatch_finding{kind,severity,gpu,uuid} 1 while a diagnose finding is active (one series per
// GPU the finding involves; none when nothing is wrong), from LiveView::findings.
#include <string>
#include <vector>

#include "live/view.hpp"

namespace gpuwatch::exporter {

void encode_findings(const live::LiveView& view, const std::vector<std::string>& labels, std::string& out);

}  // namespace gpuwatch::exporter
