#include "diagnose/imbalance_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <set>
#include <vector>

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;

struct Member {
  unsigned gpu;
  double util;
};

// The job a GPU belongs to: the name of its biggest compute process ("" when none).
std::string job_of(const GpuSample& s) {
  const ProcessView* best = nullptr;
  for (const auto& p : s.processes)
    if (!p.graphics_only && p.name && !p.name->empty() &&
        (!best || p.used_bytes.value_or(0) > best->used_bytes.value_or(0)))
      best = &p;
  return best ? *best->name : std::string();
}

std::string gpu_list(const std::vector<Member>& ms, unsigned except, bool only_except) {
  std::string out;
  for (const auto& m : ms)
    if ((m.gpu == except) == only_except) out += (out.empty() ? "" : ",") + std::to_string(m.gpu);
  return out;
}

}  // namespace

void check_imbalance(FindingTracker& tracker, const std::map<unsigned, GpuState>& gpus, double t_s,
                     std::set<TrackKey>& open_keys) {
  std::set<TrackKey> evaluated;
  std::map<std::string, std::vector<Member>> jobs;
  for (const auto& [index, st] : gpus) {
    const Window& w = st.long_w;
    if (st.sample.t_s != t_s || !st.sample.readable || w.covered_s() < kMinShortCoverageS || w.sum(kHeldUtilN) < kMinSamples)
      continue;
    if (w.sum(kHeldN) < 0.9 * w.sum(kSamples)) continue;
    std::string job = job_of(st.sample);
    if (job.empty()) continue;
    jobs[job].push_back({index, w.sum(kHeldUtilSum) / w.sum(kHeldUtilN)});
  }
  for (const auto& [job, members] : jobs) {
    const std::uint64_t sub = std::hash<std::string>{}(job);
    std::optional<Severity> sev;
    if (members.size() < 2) continue;
    auto [lo, hi] = std::minmax_element(members.begin(), members.end(),
                                        [](const Member& a, const Member& b) { return a.util < b.util; });
    const double spread = hi->util - lo->util;
    const TrackKey key{Kind::Imbalance, members.front().gpu, sub};
    evaluated.insert(key);
    const double enter = tracker.is_active(key) ? kImbalanceExitSpread : kImbalanceSpread;
    if (spread >= enter && hi->util >= kImbalanceMinBusy) sev = Severity::Warning;
    tracker.update(key, sev, t_s, [&](Finding& f) {
      std::vector<double> utils;
      for (const auto& m : members) utils.push_back(m.util);
      std::nth_element(utils.begin(), utils.begin() + static_cast<long>(utils.size() / 2), utils.end());
      const double median = utils[utils.size() / 2];
      // One GPU far above the rest is saturated (the others wait for it); far below, a straggler.
      const bool saturated = hi->util - median > median - lo->util;
      const Member odd = saturated ? *hi : *lo;
      f.gpus.clear();
      f.uuids.clear();
      f.evidence.clear();
      for (const auto& m : members) {
        f.gpus.push_back(m.gpu);
        f.evidence[fmt::format("utilization_ratio_gpu{}", m.gpu)] = m.util;
      }
      f.evidence["spread_ratio"] = spread;
      f.evidence[saturated ? "saturated_gpu" : "straggler_gpu"] = odd.gpu;
      f.impact = std::clamp(spread, 0.0, 1.0);
      f.detail = saturated
                     ? fmt::format("{}: GPU {} is saturated ({:.0f} %) while GPUs {} wait (median {:.0f} %)", job,
                                   odd.gpu, odd.util * 100, gpu_list(members, odd.gpu, false), median * 100)
                     : fmt::format("{}: GPU {} lags ({:.0f} %) behind GPUs {} (median {:.0f} %)", job, odd.gpu,
                                   odd.util * 100, gpu_list(members, odd.gpu, false), median * 100);
      f.summary = saturated ? fmt::format("imbalance: GPU {} saturated ({:.0f} %), the job's other GPUs ~{:.0f} %",
                                          odd.gpu, odd.util * 100, median * 100)
                            : fmt::format("imbalance: GPU {} straggles ({:.0f} %), the job's other GPUs ~{:.0f} %",
                                          odd.gpu, odd.util * 100, median * 100);
    });
  }
  // Jobs that vanished (or shrank to one GPU) get false evaluations so their findings end.
  for (auto it = open_keys.begin(); it != open_keys.end();) {
    if (!evaluated.contains(*it)) tracker.update(*it, std::nullopt, t_s, [](Finding&) {});
    if (!evaluated.contains(*it) && !tracker.find(*it)) it = open_keys.erase(it);
    else ++it;
  }
  open_keys.insert(evaluated.begin(), evaluated.end());
}

}  // namespace gpuwatch::diagnose
