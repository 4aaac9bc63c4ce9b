#include "diagnose/window_diagnosis.hpp"

#include <algorithm>

#include "diagnose/diagnoser.hpp"

namespace gpuwatch::diagnose {

std::vector<Finding> diagnose_window(std::span<const core::Snapshot> snapshots, std::span<const XidEvent> xids) {
  std::vector<XidEvent> events(xids.begin(), xids.end());
  std::stable_sort(events.begin(), events.end(), [](const XidEvent& a, const XidEvent& b) { return a.at < b.at; });
  Diagnoser d;
  std::size_t next = 0;
  for (const auto& s : snapshots) {
    for (; next < events.size() && events[next].at <= s.timestamp; ++next)
      d.observe_xid(events[next].gpu, events[next].xid, events[next].at);
    d.observe(s);
  }
  for (; next < events.size(); ++next) d.observe_xid(events[next].gpu, events[next].xid, events[next].at);
  return d.all_findings();
}

std::optional<Severity> worst_severity(std::span<const Finding> findings) {
  std::optional<Severity> worst;
  for (const auto& f : findings)
    if (!worst || f.severity > *worst) worst = f.severity;
  return worst;
}

}  // namespace gpuwatch::diagnose
