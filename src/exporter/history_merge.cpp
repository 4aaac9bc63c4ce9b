#include "exporter/history_merge.hpp"

#include <map>

namespace gpuwatch::exporter {
namespace {

std::map<unsigned, double> first_times(const std::vector<live::HistoryRow>& rows) {
  std::map<unsigned, double> first;
  for (const auto& r : rows) first.emplace(r.gpu, r.timestamp_s);  // keeps each GPU's first (oldest)
  return first;
}

}  // namespace

bool ring_reaches(const std::vector<live::HistoryRow>& live, const std::vector<unsigned>& gpus, double since_s,
                  double slack_s) {
  const auto first = first_times(live);
  for (unsigned g : gpus) {
    auto found = first.find(g);
    if (found == first.end() || found->second > since_s + slack_s) return false;
  }
  return true;
}

std::vector<live::HistoryRow> stored_then_live(const std::vector<live::HistoryRow>& stored, double resolution_s,
                                         const std::vector<live::HistoryRow>& live) {
  const auto first = first_times(live);
  std::map<unsigned, std::vector<live::HistoryRow>> by_gpu;
  for (const auto& r : stored) {
    auto found = first.find(r.gpu);
    if (found == first.end() || r.timestamp_s + resolution_s <= found->second) by_gpu[r.gpu].push_back(r);
  }
  for (const auto& r : live) by_gpu[r.gpu].push_back(r);
  std::vector<live::HistoryRow> out;
  for (auto& [gpu, rows] : by_gpu) out.insert(out.end(), rows.begin(), rows.end());
  return out;
}

}  // namespace gpuwatch::exporter
