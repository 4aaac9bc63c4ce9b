// comm_bound (issue 25): the GPUs of one job dip together, periodically (input_starved's gap
// shape on each), while the network or InfiniBand moves much more in the dips than outside them:
// the ranks wait for a gradient synchronisation that is not overlapped with computation. Not
// starvation (the dips are the job's collective waits) nor a fault. The job window sums, per
// snapshot, the members' least and most idle share (the co-dip) and each link's rate weighted by
// the co-dip (in the dips) and by the share none dipped (outside them).
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "diagnose/check_context.hpp"
#include "diagnose/host_checks.hpp"
#include "diagnose/imbalance_check.hpp"

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;
using CommWindow = SlidingSums<kCommChannelCount>;

struct LinkRates {
  std::optional<double> dips, outside;
  // Busy in the dips: at least kCommMinLinkBytesPerS there and RATIO x what it moves outside them.
  bool busy_in_dips(double ratio) const {
    return dips && outside && *dips >= kCommMinLinkBytesPerS && *dips >= ratio * *outside;
  }
};

LinkRates link_rates(const CommWindow& w, CommChannel dip_w) {
  LinkRates r;
  if (w.sum(dip_w) >= kHostMinGapWeight) r.dips = w.sum(dip_w + 1) / w.sum(dip_w);
  if (w.sum(dip_w + 2) >= kHostMinGapWeight) r.outside = w.sum(dip_w + 3) / w.sum(dip_w + 2);
  return r;
}

struct CommShape {
  bool enough = false;
  double sync_share = 0, dip_share = 0, together = 0, gaps = 0, gap_s = 0;
  bool periodic = false;
  LinkRates net, ib;
};

// The job's snapshot into its window: every member read, held and with a utilization reading.
void push_job(JobCommState& js, const JobTrack& job, const std::map<unsigned, GpuState>& gpus, const HostView& host,
              double t_s) {
  if (js.members != job.members.size() || (js.last_s != kNever && t_s - js.last_s > kHostStaleS)) {
    js.window.clear();
    js.members = job.members.size();
  }
  double lo = std::numeric_limits<double>::infinity(), hi = 0, sum = 0;
  for (unsigned g : job.members) {
    const GpuState& st = gpus.at(g);
    const auto w = st.sample.readable && st.sample.held() ? idle_weight(st.sample) : std::nullopt;
    if (!w) return;
    lo = std::min(lo, *w);
    hi = std::max(hi, *w);
    sum += *w;
  }
  CommWindow::Values v{};
  v[kCommN] = 1;
  v[kCommMinIdleSum] = lo;
  v[kCommMaxIdleSum] = hi;
  v[kCommMeanIdleSum] = sum / static_cast<double>(job.members.size());
  auto link = [&](CommChannel dip_w, const std::optional<double>& rate) {
    if (!host.known || !rate) return;
    v[dip_w] = lo;
    v[dip_w + 1] = lo * *rate;
    v[dip_w + 2] = 1 - hi;
    v[dip_w + 3] = (1 - hi) * *rate;
  };
  link(kCommNetDipW, host.net_bytes_per_s);
  link(kCommIbDipW, host.ib_bytes_per_s);
  js.window.push(t_s, v);
  js.last_s = t_s;
}

CommShape comm_shape(const JobCommState& js, const JobTrack& job, const std::map<unsigned, GpuState>& gpus) {
  CommShape c;
  const CommWindow& w = js.window;
  const double n = w.sum(kCommN);
  if (n < kMinSamples || w.covered_s() < kMinShortCoverageS || w.sum(kCommMaxIdleSum) <= 0) return c;
  c.enough = true;
  c.sync_share = w.sum(kCommMinIdleSum) / n;
  c.dip_share = w.sum(kCommMeanIdleSum) / n;
  c.together = w.sum(kCommMinIdleSum) / w.sum(kCommMaxIdleSum);
  c.net = link_rates(w, kCommNetDipW);
  c.ib = link_rates(w, kCommIbDipW);
  // Periodic: every member has input_starved's gap shape (recurring gaps, short, work between them).
  c.periodic = true;
  c.gaps = std::numeric_limits<double>::infinity();
  for (unsigned g : job.members) {
    const StarvationSigns s = starvation_signs(gpus.at(g).long_w);
    c.periodic = c.periodic && s.gaps >= kStarvedMinGaps && s.gap_s <= kStarvedMaxGapS && s.busy >= kStarvedMinBusyShare;
    if (s.gaps < c.gaps) {
      c.gaps = s.gaps;
      c.gap_s = s.gap_s;
    }
  }
  return c;
}

std::string rate_words(const LinkRates& r, const char* link) {
  return fmt::format("{} moves {:.2f} GB/s in the dips vs {:.2f} GB/s outside them", link, r.dips.value_or(0) / 1e9,
                     r.outside.value_or(0) / 1e9);
}

void fill_comm_bound(Finding& f, const JobTrack& job, const CommShape& c) {
  f.gpus = job.members;
  f.uuids.clear();
  f.job = job.ref;
  f.cause_gpus.clear();
  f.cause = "network";
  f.impact = c.sync_share;
  f.evidence = {{"sync_share_ratio", c.sync_share}, {"dip_share_ratio", c.dip_share}, {"together_ratio", c.together},
                {"gaps", c.gaps}, {"typical_gap_s", c.gap_s}, {"ranks", static_cast<double>(job.members.size())}};
  auto put = [&](const char* key, const std::optional<double>& x) {
    if (x) f.evidence[key] = *x;
  };
  put("net_bytes_per_s_dips", c.net.dips);
  put("net_bytes_per_s_outside", c.net.outside);
  put("ib_bytes_per_s_dips", c.ib.dips);
  put("ib_bytes_per_s_outside", c.ib.outside);
  std::string links;
  if (c.ib.busy_in_dips(kCommExitDipOverOutside)) links = rate_words(c.ib, "InfiniBand");
  if (c.net.busy_in_dips(kCommExitDipOverOutside))
    links += (links.empty() ? "" : ", ") + rate_words(c.net, "the network");
  const std::string gpus = job_gpu_list(job.members);
  f.detail = fmt::format("{}: {} dip together ({:.0f} % of their dips shared) in {:.0f} gaps of about {:.1f} s, "
                         "losing {:.0f} % of the time to synchronisation, while {}: the ranks wait for a gradient "
                         "synchronisation not overlapped with computation (not input starvation, not a GPU fault)",
                         job.ref.label, gpus, c.together * 100, c.gaps, c.gap_s, c.sync_share * 100, links);
  f.summary = fmt::format("comm-bound: {} wait together {:.0f} % of the time for synchronisation ({})", gpus,
                          c.sync_share * 100, links);
}

}  // namespace

void check_comm_bound(FindingTracker& tracker, std::map<unsigned, GpuState>& gpus, const std::vector<JobTrack>& jobs,
                      const HostView& host, double t_s, CommBoundState& state) {
  std::set<TrackKey> evaluated;
  for (auto& [index, st] : gpus) st.comm_bound = false;
  for (const auto& job : jobs) {
    // One GPU alone has no synchronisation to wait for; a hanging job is collective_hang's.
    if (job.members.size() < 2 || job.hang_open) continue;
    // No host sample yet for this job: nothing to say, and nothing to pay (a history without host rows).
    if (!host.known && !state.jobs.contains(job.key)) continue;
    auto [it, fresh] = state.jobs.try_emplace(job.key);
    JobCommState& js = it->second;
    if (fresh) js.last_s = t_s;
    push_job(js, job, gpus, host, t_s);
    const CommShape c = comm_shape(js, job, gpus);
    const TrackKey key{Kind::CommBound, job.members.front(), job.key};
    evaluated.insert(key);
    const bool was = tracker.is_active(key);
    const bool link_busy = was ? c.ib.busy_in_dips(kCommExitDipOverOutside) || c.net.busy_in_dips(kCommExitDipOverOutside)
                               : c.ib.busy_in_dips(kCommDipOverOutside) || c.net.busy_in_dips(kCommDipOverOutside);
    const bool holds = c.enough && link_busy &&
                       (was ? c.dip_share >= kStarvedExitShare && c.together >= kCommExitTogetherRatio
                            : c.dip_share >= kStarvedInfoShare && c.together >= kCommTogetherRatio && c.periodic);
    std::optional<Severity> sev;
    if (holds) sev = c.sync_share >= kStarvedWarnShare ? Severity::Warning : Severity::Info;
    if (holds || was)
      for (unsigned g : job.members) gpus.at(g).comm_bound = true;
    tracker.update(key, sev, t_s, [&](Finding& f) { fill_comm_bound(f, job, c); });
  }
  // Jobs that vanished get false evaluations so their findings end; their windows go.
  for (auto it = state.open_keys.begin(); it != state.open_keys.end();) {
    if (!evaluated.contains(*it)) tracker.update(*it, std::nullopt, t_s, [](Finding&) {});
    if (!evaluated.contains(*it) && !tracker.find(*it)) it = state.open_keys.erase(it);
    else ++it;
  }
  state.open_keys.insert(evaluated.begin(), evaluated.end());
  for (auto it = state.jobs.begin(); it != state.jobs.end();) {
    if (it->second.last_s != kNever && t_s - it->second.last_s > kLongWindowS) it = state.jobs.erase(it);
    else ++it;
  }
}

}  // namespace gpuwatch::diagnose
