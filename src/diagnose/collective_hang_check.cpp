// collective_hang: the ranks of one job switched together (within kHangSwitchSkewS) from their
// own working level to utilization pinned at flat, much lower power (their spin runs,
// spin_run.cpp), and every rank of the job spins, left or went idle. Memory utilization is not
// looked at: NCCL's polling moves some data. A rank that left the GPU (its process gone, the GPU
// lost) around the switch, or sits idle, is the cause; the spinning ranks are its consequences.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "diagnose/check_context.hpp"
#include "diagnose/imbalance_check.hpp"

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;

struct HangShape {
  bool holds = false;
  std::vector<unsigned> spinning, gone, idle;
  double first_switch_s = 0, skew_s = 0, hung_s = 0;
  double power_ratio = 0, working_power_ratio = 0, power_std = 0;
  std::optional<double> mem_util;
  bool any_lost = false;
};

HangShape hang_shape(const JobTrack& job, const std::map<unsigned, GpuState>& gpus, double t_s) {
  HangShape h;
  double first = std::numeric_limits<double>::infinity(), last = -first;
  double mem_sum = 0, mem_n = 0;
  for (unsigned g : job.members) {
    const GpuState& st = gpus.at(g);
    const SpinRun& run = st.spin;
    if (run.open()) {
      h.spinning.push_back(g);
      first = std::min(first, run.since_s);
      last = std::max(last, run.since_s);
      h.power_ratio += run.mean_power_ratio();
      h.working_power_ratio += run.from_power_ratio;
      h.power_std = std::max(h.power_std, run.power_std());
      mem_sum += run.mem_sum;
      mem_n += run.mem_n;
      continue;
    }
    auto idle = share(st.recent_w, kIdleN, kUtilN, 2);
    if (idle && *idle >= kHangIdleRankShare) h.idle.push_back(g);
    else return h;  // a rank still works: not a hang (if the others wait for it, an imbalance)
  }
  if (h.spinning.empty() || last - first > kHangSwitchSkewS || h.power_std > kSpinFlatPowerStd) return h;
  for (const auto& [g, seen] : job.last_member_s) {
    if (std::find(job.members.begin(), job.members.end(), g) != job.members.end()) continue;
    if (seen < first - kHangRankGoneBeforeS) continue;  // left long before: not this hang's rank
    h.gone.push_back(g);
    auto it = gpus.find(g);
    if (it != gpus.end() && !it->second.sample.readable) h.any_lost = true;
  }
  if (h.spinning.size() + h.gone.size() + h.idle.size() < 2) return h;
  const auto n = static_cast<double>(h.spinning.size());
  h.power_ratio /= n;
  h.working_power_ratio /= n;
  if (mem_n > 0) h.mem_util = mem_sum / mem_n;
  h.first_switch_s = first;
  h.skew_s = last - first;
  h.hung_s = t_s - first;
  h.holds = h.hung_s >= kHangMinS;
  return h;
}

std::string ranks_word(const std::vector<unsigned>& gpus) { return gpus.size() == 1 ? "rank" : "ranks"; }

void fill_collective_hang(Finding& f, const JobTrack& job, const HangShape& h) {
  std::vector<unsigned> causes = h.gone;
  causes.insert(causes.end(), h.idle.begin(), h.idle.end());
  std::sort(causes.begin(), causes.end());
  f.gpus = h.spinning;
  f.gpus.insert(f.gpus.end(), causes.begin(), causes.end());
  std::sort(f.gpus.begin(), f.gpus.end());
  f.uuids.clear();
  f.job = job.ref;
  f.cause_gpus = causes;
  // The hang began at the switch, not when it had lasted long enough to be called one.
  f.start = std::min(f.start, from_seconds(h.first_switch_s));
  f.impact = 1.0;
  f.evidence = {{"hung_s", h.hung_s}, {"switch_skew_s", h.skew_s}, {"power_limit_ratio", h.power_ratio},
                {"working_power_limit_ratio", h.working_power_ratio}, {"power_std_ratio", h.power_std},
                {"spinning_ranks", static_cast<double>(h.spinning.size())},
                {"gone_ranks", static_cast<double>(h.gone.size())}, {"idle_ranks", static_cast<double>(h.idle.size())}};
  if (h.mem_util) f.evidence["memory_utilization_ratio"] = *h.mem_util;
  const std::string spinning = job_gpu_list(h.spinning);
  const std::string mem = h.mem_util ? fmt::format(" with {:.0f} % memory utilization", *h.mem_util * 100) : "";
  const std::string shape =
      fmt::format("switched together ({}) from their working level (~{:.0f} % of the power limit) to 100 % utilization "
                  "at a flat {:.0f} % power{}, for {:.0f} s",
                  h.skew_s < 1 ? std::string("in the same sample") : fmt::format("within {:.0f} s", h.skew_s),
                  h.working_power_ratio * 100, h.power_ratio * 100, mem, h.hung_s);
  if (!causes.empty()) {
    std::string what;
    if (!h.gone.empty())
      what = fmt::format("{}'s {} died ({})", job_gpu_list(h.gone), ranks_word(h.gone),
                         h.any_lost ? "the GPU fell off the bus" : "its process left the GPU");
    if (!h.idle.empty())
      what += fmt::format("{}{}'s {} went idle", what.empty() ? "" : "; ", job_gpu_list(h.idle), ranks_word(h.idle));
    f.detail = fmt::format("{}: {}, and {} {}: they spin in a collective waiting for it", job.ref.label, what, spinning,
                           shape);
    f.summary = fmt::format("collective hang: {} dead, {} spin at 100 % ({:.0f} % power) for {:.0f} min",
                            job_gpu_list(causes), spinning, h.power_ratio * 100, h.hung_s / 60);
  } else {
    f.detail = fmt::format("{}: {} {}, every rank still alive: a collective that never completes (a deadlock, a rank "
                           "stuck on the host, mismatched collectives)",
                           job.ref.label, spinning, shape);
    f.summary = fmt::format("collective hang: {} spin at 100 % ({:.0f} % power) for {:.0f} min, every rank alive",
                            spinning, h.power_ratio * 100, h.hung_s / 60);
  }
}

}  // namespace

void check_collective_hang(FindingTracker& tracker, std::map<unsigned, GpuState>& gpus, std::vector<JobTrack>& jobs,
                           double t_s) {
  for (auto& [index, st] : gpus) st.in_collective_hang = false;
  for (auto& job : jobs) {
    if (job.members.empty() && !job.hang_open) continue;
    const HangShape h = job.members.empty() ? HangShape{} : hang_shape(job, gpus, t_s);
    std::optional<Severity> sev;
    // Critical when a rank is known dead, or past PyTorch's NCCL timeout (stuck_kernel's rule).
    if (h.holds) sev = !h.gone.empty() || h.hung_s >= kStuckCriticalS ? Severity::Critical : Severity::Warning;
    if (h.holds && !job.hang_open) job.finding_gpu = h.spinning.front();
    const TrackKey key{Kind::CollectiveHang, job.finding_gpu, job.key};
    tracker.update(key, sev, t_s, [&](Finding& f) { fill_collective_hang(f, job, h); });
    job.hang_open = h.holds || tracker.find(key) != nullptr;
    if (h.holds)
      for (unsigned g : h.spinning) gpus.at(g).in_collective_hang = true;
  }
}

}  // namespace gpuwatch::diagnose
