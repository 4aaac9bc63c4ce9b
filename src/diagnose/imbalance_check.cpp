#include "diagnose/imbalance_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;

struct ImbalanceMember {
  unsigned gpu;
  double util;
};

std::string imbalance_gpu_list(const std::vector<ImbalanceMember>& ms, unsigned except) {
  std::string out;
  for (const auto& m : ms)
    if (m.gpu != except) out += (out.empty() ? "" : ",") + std::to_string(m.gpu);
  return out;
}

// "thermal throttling", "power-capped" or "" for the GPU the others wait for.
std::string slowed_by(const FindingTracker& tracker, unsigned gpu) {
  if (tracker.is_active({Kind::ThermalThrottle, gpu, 0})) return ", thermal throttling";
  if (tracker.is_active({Kind::PowerCap, gpu, 0})) return ", power-capped";
  if (tracker.is_active({Kind::OtherThrottle, gpu, 0})) return ", clocks held down";
  return "";
}

}  // namespace

std::string job_gpu_list(const std::vector<unsigned>& gpus) {
  std::string out = gpus.size() == 1 ? "GPU " : "GPUs ";
  for (std::size_t i = 0; i < gpus.size(); ++i) out += (i ? "," : "") + std::to_string(gpus[i]);
  return out;
}

void check_imbalance(FindingTracker& tracker, std::map<unsigned, GpuState>& gpus, const std::vector<JobTrack>& jobs,
                     double t_s, std::set<TrackKey>& open_keys) {
  std::set<TrackKey> evaluated;
  for (auto& [index, st] : gpus) st.waits_for_sibling = false;
  for (const auto& job : jobs) {
    // A job whose ranks spin (a hang forming or found) has the hang's spread, not an imbalance.
    if (job.members.size() < 2 || job.hang_open ||
        std::any_of(job.members.begin(), job.members.end(), [&](unsigned g) { return gpus.at(g).spin.open(); }))
      continue;
    std::vector<ImbalanceMember> members;
    for (unsigned g : job.members) {
      const GpuState& st = gpus.at(g);
      const Window& w = st.long_w;
      if (!st.sample.readable || w.covered_s() < kMinShortCoverageS || w.sum(kHeldUtilN) < kMinSamples) continue;
      if (w.sum(kHeldN) < 0.9 * w.sum(kSamples)) continue;
      members.push_back({g, w.sum(kHeldUtilSum) / w.sum(kHeldUtilN)});
    }
    if (members.size() < 2) continue;
    auto [lo, hi] = std::minmax_element(members.begin(), members.end(),
                                        [](const ImbalanceMember& a, const ImbalanceMember& b) { return a.util < b.util; });
    const double spread = hi->util - lo->util;
    const TrackKey key{Kind::Imbalance, members.front().gpu, job.key};
    evaluated.insert(key);
    const bool was = tracker.is_active(key);
    std::optional<Severity> sev;
    if (spread >= (was ? kImbalanceExitSpread : kImbalanceSpread) && hi->util >= kImbalanceMinBusy) sev = Severity::Warning;
    std::vector<double> utils;
    for (const auto& m : members) utils.push_back(m.util);
    std::nth_element(utils.begin(), utils.begin() + static_cast<long>(utils.size() / 2), utils.end());
    const double median = utils[utils.size() / 2];
    // One GPU far above the rest is saturated (the others wait for it); far below, a straggler.
    const bool saturated = hi->util - median > median - lo->util;
    const ImbalanceMember odd = saturated ? *hi : *lo;
    // The ranks waiting for a saturated GPU idle because of it: their idle time is explained.
    if (saturated && (sev || was))
      for (const auto& m : members)
        if (m.gpu != odd.gpu) gpus.at(m.gpu).waits_for_sibling = true;
    tracker.update(key, sev, t_s, [&](Finding& f) {
      f.gpus.clear();
      f.uuids.clear();
      f.evidence.clear();
      for (const auto& m : members) {
        f.gpus.push_back(m.gpu);
        f.evidence[fmt::format("utilization_ratio_gpu{}", m.gpu)] = m.util;
      }
      f.job = job.ref;
      f.cause_gpus = {odd.gpu};
      f.evidence["spread_ratio"] = spread;
      f.evidence[saturated ? "saturated_gpu" : "straggler_gpu"] = odd.gpu;
      f.impact = std::clamp(spread, 0.0, 1.0);
      const std::string others = imbalance_gpu_list(members, odd.gpu);
      const std::string slowed = slowed_by(tracker, odd.gpu);
      f.detail = saturated
                     ? fmt::format("{}: GPU {} is saturated ({:.0f} %{}) while GPUs {} wait for it at every collective "
                                   "(median {:.0f} %): their idle time is this wait, not input stalls",
                                   job.ref.label, odd.gpu, odd.util * 100, slowed, others, median * 100)
                     : fmt::format("{}: GPU {} lags ({:.0f} %) behind GPUs {} (median {:.0f} %)", job.ref.label, odd.gpu,
                                   odd.util * 100, others, median * 100);
      f.summary = saturated ? fmt::format("imbalance: GPU {} saturated ({:.0f} %{}), GPUs {} wait for it (~{:.0f} %)",
                                          odd.gpu, odd.util * 100, slowed, others, median * 100)
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
