// input_starved, launch_bound, low_utilization, idle_process, stuck_kernel: what the
// utilization, power, memory utilization and GPM SM activity windows say about the work.
#include <fmt/format.h>

#include <algorithm>

#include "diagnose/check_context.hpp"
#include "diagnose/starvation_cause.hpp"

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;

bool enough(const Window& w, double min_covered_s) {
  return w.covered_s() >= min_covered_s && w.sum(kUtilN) >= kMinSamples;
}

// Utilization pinned at 100 % with nothing moving: a spinning kernel (stuck_kernel's shape).
bool stuck_shape(const Window& w, double min_samples = kMinSamples) {
  auto pinned = share(w, kPinnedN, kUtilN, min_samples);
  auto power = share(w, kPowerRatioSum, kPowerN, min_samples);
  if (!pinned || *pinned < kStuckPinnedShare || !power) return false;
  if (auto mem = share(w, kMemUtilSum, kMemUtilN, min_samples)) return *mem <= kStuckMaxMemUtil && *power <= kStuckPowerRatioLowMem;
  return *power <= kStuckPowerRatio;
}

// Idle while a process holds the GPU, for the whole long window.
bool idle_shape(const Window& w) {
  if (!enough(w, kIdleProcessMinS * kCoverageSlack)) return false;
  auto idle = share(w, kIdleHeldN, kUtilN, kMinSamples);
  return idle && *idle >= kIdleProcessShare;
}

const ProcessView* biggest_holder(const GpuSample& s) {
  const ProcessView* best = nullptr;
  for (const auto& p : s.processes) {
    if (p.graphics_only) continue;
    if (!best || p.used_bytes.value_or(0) > best->used_bytes.value_or(0)) best = &p;
  }
  return best;
}

std::string pname(const ProcessView& p) { return p.name && !p.name->empty() ? *p.name : std::string("process"); }

}  // namespace

StarvationSigns starvation_signs(const Window& w) {
  StarvationSigns s;
  if (w.sum(kBufferN) >= kMinSamples) {
    // Every sample period between the readings: readings on a timer in phase with a periodic
    // stall may all land in its gaps (or all in its work), the buffer does not.
    s.from_buffer = true;
    s.idle = w.sum(kBufferIdleSum) / w.sum(kBufferN);
    s.busy = 1.0 - s.idle;
    s.gaps = w.sum(kBufferGaps);
    s.gap_s = s.gaps > 0 ? s.idle * w.covered_s() / s.gaps : 0;
    return s;
  }
  s.busy = share(w, kBusyN, kUtilN).value_or(0);
  s.idle = share(w, kIdleHeldN, kUtilN).value_or(0);
  s.gaps = w.sum(kGapStarts);
  s.gap_s = s.gaps > 0 ? w.sum(kIdleHeldN) * mean_interval_s(w) / s.gaps : 0;
  return s;
}

namespace {

bool check_input_starved(CheckContext& c) {
  const Window& w = c.state.long_w;
  std::optional<Severity> sev;
  StarvationSigns s;
  // A rank waiting for a saturated sibling idles because of it (the imbalance names the cause).
  // Nor does a rank whose job's GPUs dip together while the network is busy (comm_bound's).
  if (!c.state.waits_for_sibling && !c.state.comm_bound && enough(w, kMinShortCoverageS)) {
    s = starvation_signs(w);
    const bool was = c.active(Kind::InputStarved);
    const bool holds = was ? s.idle >= kStarvedExitShare && s.gaps >= 1 && s.busy >= kStarvedMinBusyShare
                           : s.idle >= kStarvedInfoShare && s.gaps >= kStarvedMinGaps && s.busy >= kStarvedMinBusyShare &&
                                 s.gap_s <= kStarvedMaxGapS;
    if (holds) sev = s.idle >= kStarvedWarnShare ? Severity::Warning : Severity::Info;
  }
  c.tracker.update(c.key(Kind::InputStarved), sev, c.sample.t_s, [&](Finding& f) {
    f.evidence = {{"idle_ratio", s.idle}, {"busy_ratio", s.busy}, {"gaps", s.gaps}, {"typical_gap_s", s.gap_s},
                  {"window_s", w.covered_s()}, {"sample_buffer", s.from_buffer ? 1.0 : 0.0}};
    if (s.from_buffer) f.evidence["sample_buffer_samples"] = w.sum(kBufferN);
    f.impact = s.idle;
    f.detail = fmt::format("the GPU sat idle {:.0f} % of the last {:.0f} s while its process waited, in {:.0f} gaps of "
                           "about {:.1f} s{}", s.idle * 100, w.covered_s(), s.gaps, s.gap_s,
                           s.from_buffer ? " (the driver's sample buffer: every sample period between the readings)"
                                         : " (the readings alone: gaps shorter than the interval may be missed)");
    f.summary = fmt::format("input-starved: idle {:.0f} % of the time in gaps of ~{:.1f} s (data loader?)", s.idle * 100,
                            s.gap_s);
    f.cause = std::string(cause_id(StarvationCause::Unknown));
    // Without host samples the finding is what it always was (the cause unknown, the default advice).
    if (c.state.host_w.size() == 0) return;
    const HostDuringGaps g = host_during_gaps(c.state.host_w);
    if (!g.seen) return;
    add_cause_evidence(g, f.evidence);
    f.cause = std::string(cause_id(g.cause));
    const std::string words = cause_words(g);
    if (g.cause == StarvationCause::Unknown) {
      f.detail += fmt::format("; cause unknown: nothing stands out on the host during the gaps{}",
                              words.empty() ? "" : " (" + words + ")");
      f.summary = fmt::format("input-starved (cause unknown): idle {:.0f} % of the time in gaps of ~{:.1f} s{}",
                              s.idle * 100, s.gap_s, words.empty() ? "" : "; " + words);
      f.advice = default_advice(Kind::InputStarved, c.sample.vendor);
      return;
    }
    const char* what = g.cause == StarvationCause::CpuBound ? "CPU-bound: the data preparation cannot keep up"
                                                            : "I/O-bound: the reads cannot keep up";
    f.detail += fmt::format("; cause {} ({}): {} during the gaps", cause_id(g.cause), what, words);
    f.summary = fmt::format("input-starved ({}): idle {:.0f} % of the time in gaps of ~{:.1f} s; {}", cause_id(g.cause),
                            s.idle * 100, s.gap_s, words);
    f.advice = cause_advice(g.cause);
  });
  return sev.has_value();
}

void check_stuck(CheckContext& c) {
  const Window& w = c.state.long_w;
  std::optional<Severity> sev;
  // A rank of a collective hang: the job's collective_hang finding names it with its cause.
  if (!c.state.in_collective_hang && enough(w, kStuckMinS * kCoverageSlack) && stuck_shape(w)) sev = Severity::Warning;
  double since_s = 0;
  if (sev) {
    since_s = w.covered_s();
    if (const Finding* open = c.tracker.find(c.key(Kind::StuckKernel)))
      since_s = c.sample.t_s - to_seconds(open->start) + w.covered_s();
    if (since_s >= kStuckCriticalS) sev = Severity::Critical;
  }
  c.tracker.update(c.key(Kind::StuckKernel), sev, c.sample.t_s, [&](Finding& f) {
    const double power = share(w, kPowerRatioSum, kPowerN).value_or(0);
    f.evidence = {{"utilization_ratio", share(w, kUtilSum, kUtilN).value_or(0)}, {"power_limit_ratio", power},
                  {"pinned_s", since_s}};
    if (auto mem = share(w, kMemUtilSum, kMemUtilN)) f.evidence["memory_utilization_ratio"] = *mem;
    if (c.sample.power_w) f.evidence["power_w"] = *c.sample.power_w;
    f.impact = 1.0;
    f.detail = fmt::format("utilization pinned at 100 % for {:.0f} s at {:.0f} % of the power limit with no memory "
                           "traffic: a kernel spins (a collective waiting for a dead rank?)", since_s, power * 100);
    f.summary = fmt::format("stuck kernel? 100 % busy at {:.0f} % power for {:.0f} min (NCCL hang?)", power * 100,
                            since_s / 60);
  });
}

void check_idle_process(CheckContext& c) {
  const Window& w = c.state.long_w;
  const ProcessView* holder = biggest_holder(c.sample);
  std::optional<Severity> sev;
  if (holder && (!holder->used_bytes || *holder->used_bytes >= kIdleProcessMinMemoryBytes) && idle_shape(w))
    sev = Severity::Warning;
  c.tracker.update(c.key(Kind::IdleProcess), sev, c.sample.t_s, [&](Finding& f) {
    f.pid = holder->pid;
    f.evidence = {{"idle_s", w.covered_s()}, {"processes", static_cast<double>(c.sample.processes.size())}};
    if (holder->used_bytes) f.evidence["process_memory_bytes"] = *holder->used_bytes;
    f.impact = 1.0;
    f.detail = fmt::format("{} (PID {}) holds {} while the GPU did nothing for {:.0f} s", pname(*holder), holder->pid,
                           holder->used_bytes ? fmt::format("{:.0f} MiB", *holder->used_bytes / 1048576) : "memory",
                           w.covered_s());
    f.summary = fmt::format("idle process: PID {} holds the GPU, 0 % busy for {:.0f}+ min (hung job?)", holder->pid,
                            w.covered_s() / 60);
  });
}

void check_launch_bound(CheckContext& c) {
  const Window& w = c.state.short_w;
  std::optional<Severity> sev;
  double util = 0, sm = -1, power = -1, mem = -1;
  // A hang starting (the recent samples spin) is stuck_kernel's, not a launch-bound job's. So is
  // a sudden switch from the GPU's working level to pinned at low power (a spin run): launch-bound
  // is a steady state. A run still alone after a long window (no job hang) may be one.
  const SpinRun& run = c.state.spin;
  const bool switched = run.open() && (c.state.in_collective_hang || c.sample.t_s - run.since_s < kLongWindowS);
  if (!switched && enough(w, kMinShortCoverageS) && !stuck_shape(w) && !stuck_shape(c.state.recent_w, 5)) {
    util = share(w, kUtilSum, kUtilN).value_or(0);
    const bool gpm = w.sum(kSmN) >= 0.8 * w.sum(kUtilN);
    bool holds = false;
    if (util >= kLaunchBoundMinUtil && gpm) {
      sm = w.sum(kSmSum) / w.sum(kSmN);
      holds = sm < kLaunchBoundSmActive && w.sum(kSmUtilSum) / w.sum(kSmN) - sm >= kLaunchBoundMinGap;
    } else if (util >= kLaunchBoundMinUtil) {
      auto p = share(w, kPowerRatioSum, kPowerN, kMinSamples);
      auto m = share(w, kMemUtilSum, kMemUtilN, kMinSamples);
      power = p.value_or(-1);
      mem = m.value_or(-1);
      holds = p && (*p < kLaunchBoundPowerRatio || (m && *m < kLaunchBoundLowMemUtil && *p < kLaunchBoundPowerRatioLowMem));
    }
    if (holds) sev = Severity::Warning;
  }
  c.tracker.update(c.key(Kind::LaunchBound), sev, c.sample.t_s, [&](Finding& f) {
    f.evidence = {{"utilization_ratio", util}};
    if (sm >= 0) {
      f.evidence["sm_active_ratio"] = sm;
      f.impact = std::clamp(1.0 - sm / std::max(util, 1e-9), 0.0, 1.0);
      f.detail = fmt::format("utilization {:.0f} % but only {:.0f} % SM activity (GPM): kernels too small to fill the GPU",
                             util * 100, sm * 100);
      f.summary = fmt::format("launch-bound: {:.0f} % busy, SMs {:.0f} % active (small kernels)", util * 100, sm * 100);
    } else {
      f.evidence["power_limit_ratio"] = power;
      if (mem >= 0) f.evidence["memory_utilization_ratio"] = mem;
      f.detail = fmt::format("utilization {:.0f} % at only {:.0f} % of the power limit{}: many small kernels, the SMs "
                             "mostly idle", util * 100, power * 100,
                             mem >= 0 ? fmt::format(" and {:.0f} % memory utilization", mem * 100) : "");
      f.summary = fmt::format("launch-bound: {:.0f} % busy at {:.0f} % power (small kernels)", util * 100, power * 100);
    }
  });
}

// low_utilization's host words (issue 25), only with host samples in the window: a host idle too
// means the time goes in the GPU's own work (its kernels); a busy host, the CPU side.
void add_host_load(const HostWindow& hw, Finding& f) {
  if (hw.sum(kCpuBusyN) < kMinSamples) return;
  const double busy = hw.sum(kCpuBusySum) / hw.sum(kCpuBusyN);
  const std::optional<double> workers =
      hw.sum(kTreeSatN) >= kMinSamples ? std::optional(hw.sum(kTreeSatSum) / hw.sum(kTreeSatN)) : std::nullopt;
  f.evidence["host_cpu_busy_ratio"] = busy;
  if (workers) f.evidence["worker_saturation_ratio"] = *workers;
  const bool saturated = busy >= kCpuBoundBusyRatio || (workers && *workers >= kCpuBoundTreeRatio);
  if (busy < kHostIdleCpuRatio && !saturated) {
    f.evidence["host_idle"] = 1;
    f.cause = "kernel_bound";
    f.detail += fmt::format("; the host was idle too ({:.0f} % CPU busy): the time goes in the kernels (profile the "
                            "operators)", busy * 100);
    f.summary += "; host idle too: the time goes in the kernels (profile the operators)";
  } else if (saturated) {
    f.evidence["host_idle"] = 0;
    f.cause = "cpu_bound";
    f.detail += fmt::format("; the host was busy ({:.0f} % CPU busy{}): the CPU side (data preparation, Python "
                            "overhead) holds the GPU back", busy * 100,
                            workers ? fmt::format(", the job's workers {:.0f} % busy", *workers * 100) : "");
    f.summary += fmt::format("; host busy ({:.0f} % CPU): the CPU side holds the GPU back", busy * 100);
  } else {
    f.evidence["host_idle"] = 0;
    f.detail += fmt::format("; the host was partly busy ({:.0f} % CPU busy): neither idle nor saturated", busy * 100);
    f.summary += fmt::format("; host {:.0f} % busy", busy * 100);
  }
}

void check_low_utilization(CheckContext& c, bool more_specific) {
  const Window& w = c.state.long_w;
  std::optional<Severity> sev;
  double mean = 0;
  auto held = share(w, kHeldN, kSamples);
  // Idle most of the time, over the long or the recent window: idle_process's business.
  auto idle = share(w, kIdleHeldN, kUtilN, kMinSamples);
  auto idle_short = share(c.state.short_w, kIdleHeldN, kUtilN, kMinSamples);
  if (!more_specific && enough(w, kMinLongCoverageS) && held && *held >= 0.9 && w.sum(kHeldUtilN) >= kMinSamples &&
      idle && *idle < kLowUtilMaxIdleShare && idle_short && *idle_short < kLowUtilMaxIdleShare) {
    mean = w.sum(kHeldUtilSum) / w.sum(kHeldUtilN);
    const double margin = c.active(Kind::LowUtilization) ? kLowUtilExitMargin : 0;
    if (mean < kLowUtilWarn + margin) sev = Severity::Warning;
    else if (mean < kLowUtilInfo + margin) sev = Severity::Info;
  }
  c.tracker.update(c.key(Kind::LowUtilization), sev, c.sample.t_s, [&](Finding& f) {
    f.evidence = {{"utilization_ratio", mean}, {"window_s", w.covered_s()}};
    f.impact = 1.0 - mean;
    f.detail = fmt::format("mean utilization {:.0f} % over {:.0f} s with a process on the GPU, no gaps pattern, "
                           "throttling or hang to explain it", mean * 100, w.covered_s());
    f.summary = fmt::format("underused: {:.0f} % busy over {:.0f} min", mean * 100, w.covered_s() / 60);
    add_host_load(c.state.host_w, f);
  });
}

}  // namespace

void check_utilization(CheckContext& c) {
  const bool starved = check_input_starved(c);
  check_stuck(c);
  check_idle_process(c);
  check_launch_bound(c);
  const bool more_specific = starved || idle_shape(c.state.long_w) || stuck_shape(c.state.long_w) ||
                             c.active(Kind::InputStarved) || c.active(Kind::IdleProcess) ||
                             c.state.in_collective_hang || c.state.waits_for_sibling || c.state.comm_bound ||
                             c.state.spin.open();
  check_low_utilization(c, more_specific);
}

}  // namespace gpuwatch::diagnose
