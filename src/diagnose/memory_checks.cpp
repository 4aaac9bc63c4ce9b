// memory_leak (per process), memory_pressure, unattributed_memory; host_memory_pressure (the host's
// memory, once per snapshot: check_host_memory_pressure).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "diagnose/check_context.hpp"
#include "diagnose/host_checks.hpp"
#include "diagnose/imbalance_check.hpp"

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = kMiB * 1024.0;

std::string duration_text(double s) {
  if (s < 90) return fmt::format("{:.0f} s", s);
  if (s < 90 * 60) return fmt::format("{:.0f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

bool leaking(const TrendFit& f, double min_growth, bool was_active) {
  if (f.points < static_cast<std::size_t>(kLeakMinPoints) || f.covered_s < kLeakMinSpanS || f.slope_per_s <= 0) return false;
  const double growth = f.slope_per_s * f.covered_s;
  const double relax = was_active ? 0.5 : 1.0;  // hysteresis: a started leak ends on clearly weaker evidence
  if (growth < min_growth * relax || f.r2 < kLeakMinR2 - (was_active ? 0.15 : 0)) return false;
  // Steady, not decelerating: an allocator's cache approaching its plateau slows down.
  if (f.older_half_slope && f.recent_half_slope && *f.older_half_slope > 0)
    return *f.recent_half_slope >= kLeakMinHalfSlopeRatio * relax * *f.older_half_slope;
  return true;
}

void check_process_leak(CheckContext& c, std::uint32_t pid, ProcessTrack& track, bool present) {
  const GpuSample& s = c.sample;
  std::optional<TrendFit> fit;
  std::optional<Severity> sev;
  double oom_s = -1;
  if (present && s.mem_total_bytes) {
    fit = track.memory.fit();
    const double min_growth = std::max(kLeakMinGrowthBytes, kLeakMinGrowthOfTotal * *s.mem_total_bytes);
    if (fit && leaking(*fit, min_growth, c.active(Kind::MemoryLeak, pid))) {
      const double used = s.mem_used_bytes.value_or(fit->last_y);
      oom_s = std::max(0.0, *s.mem_total_bytes - used) / fit->slope_per_s;
      sev = oom_s < kLeakCriticalOomS ? Severity::Critical : Severity::Warning;
    }
  }
  c.tracker.update(c.key(Kind::MemoryLeak, pid), sev, s.t_s, [&](Finding& f) {
    const double rate = fit->slope_per_s;
    f.evidence = {{"rate_bytes_per_s", rate}, {"process_memory_bytes", fit->last_y}, {"time_to_oom_s", oom_s},
                  {"growth_bytes", rate * fit->covered_s}, {"fit_r2", fit->r2}, {"window_s", fit->covered_s}};
    const std::string name = track.name.empty() ? "process" : track.name;
    f.detail = fmt::format("{} (PID {}) grew {:.0f} MiB/min steadily over {:.0f} s to {:.1f} GiB; at this rate the GPU "
                           "is out of memory in {}", name, pid, rate * 60 / kMiB, fit->covered_s, fit->last_y / kGiB,
                           duration_text(oom_s));
    f.summary = fmt::format("memory leak: PID {} +{:.0f} MiB/min, OOM in ~{}", pid, rate * 60 / kMiB, duration_text(oom_s));
  }, Hysteresis{thresholds::kRaiseAfterEvaluations, thresholds::kClearAfterS});
}

void check_leaks(CheckContext& c) {
  std::vector<std::uint32_t> present;
  for (const auto& p : c.sample.processes) present.push_back(p.pid);
  for (auto it = c.state.processes.begin(); it != c.state.processes.end();) {
    const bool here = std::find(present.begin(), present.end(), it->first) != present.end();
    check_process_leak(c, it->first, it->second, here);
    // A process gone for a while is forgotten (a new one with its PID starts afresh).
    if (!here && c.sample.t_s - it->second.last_seen_s > kClearAfterS && !c.active(Kind::MemoryLeak, it->first))
      it = c.state.processes.erase(it);
    else if (!here && c.sample.t_s - it->second.last_seen_s > kMaxSampleGapS) {
      it->second.memory.clear();
      ++it;
    } else {
      ++it;
    }
  }
}

void check_pressure(CheckContext& c) {
  const GpuSample& s = c.sample;
  std::optional<Severity> sev;
  auto ratio = s.memory_used_ratio();
  std::optional<TrendFit> fit;
  bool growing = false;
  if (ratio) {
    const double enter = c.active(Kind::MemoryPressure) ? kPressureExitRatio : kPressureUsedRatio;
    if (*ratio >= enter) {
      fit = c.state.device_memory.fit();
      growing = fit && fit->covered_s >= kMinShortCoverageS && fit->slope_per_s >= kPressureGrowthBytesPerS &&
                (!fit->recent_half_slope || *fit->recent_half_slope >= kPressureGrowthBytesPerS);
      sev = growing ? Severity::Warning : Severity::Info;
    }
  }
  c.tracker.update(c.key(Kind::MemoryPressure), sev, s.t_s, [&](Finding& f) {
    f.evidence = {{"memory_used_ratio", *ratio}, {"memory_used_bytes", *s.mem_used_bytes},
                  {"memory_total_bytes", *s.mem_total_bytes}};
    if (fit) f.evidence["growth_bytes_per_s"] = fit->slope_per_s;
    f.detail = growing ? fmt::format("{:.0f} % of GPU memory in use and growing {:.0f} MiB/min towards the limit",
                                     *ratio * 100, fit->slope_per_s * 60 / kMiB)
                       : fmt::format("{:.0f} % of GPU memory in use, steady (a caching allocator keeps what it reserved)",
                                     *ratio * 100);
    f.summary = growing ? fmt::format("memory {:.0f} % full and growing", *ratio * 100)
                        : fmt::format("memory {:.0f} % full (steady)", *ratio * 100);
  });
}

void check_unattributed(CheckContext& c) {
  const Window& w = c.state.short_w;
  std::optional<Severity> sev;
  double mean = 0;
  if (w.covered_s() >= kMinShortCoverageS && w.sum(kUnattributedCheckN) >= kMinSamples) {
    const double hit = w.sum(kUnattributedN) / w.sum(kUnattributedCheckN);
    mean = w.sum(kUnattributedBytesSum) / w.sum(kUnattributedCheckN);
    if (hit >= (c.active(Kind::UnattributedMemory) ? 0.5 : 0.9)) sev = Severity::Info;
  }
  c.tracker.update(c.key(Kind::UnattributedMemory), sev, c.sample.t_s, [&](Finding& f) {
    f.evidence = {{"unattributed_bytes", mean}, {"processes", static_cast<double>(c.sample.processes.size())}};
    if (c.sample.mem_used_bytes) f.evidence["memory_used_bytes"] = *c.sample.mem_used_bytes;
    f.detail = fmt::format("{:.1f} GiB of device memory in use is not held by any visible process ({} visible)",
                           mean / kGiB, c.sample.processes.size());
    f.summary = fmt::format("{:.1f} GiB used by no visible process (other container? leaked context?)", mean / kGiB);
  });
}

}  // namespace

void check_memory(CheckContext& c) {
  check_leaks(c);
  check_pressure(c);
  check_unattributed(c);
}

// host_memory_pressure: over the short window of host samples taken while a process held a GPU,
// swapping (swap-in + swap-out >= kSwapPagesPerS) at least kSwapShare of the samples, or memory
// PSI (avg10) some or full above their levels on average.
void check_host_memory_pressure(FindingTracker& tracker, HostMemoryState& state, const HostView& host,
                                const std::vector<unsigned>& held, double t_s) {
  auto& w = state.window;
  if (state.last_s != kNever && t_s - state.last_s > kHostStaleS) w.clear();
  const bool sampled = host.known && !held.empty();
  if (sampled) {
    SlidingSums<kHostMemoryChannelCount>::Values v{};
    v[kMemHostN] = 1;
    if (host.swap_pages_per_s) {
      v[kSwapN] = 1;
      v[kSwapSum] = *host.swap_pages_per_s;
      v[kSwappingN] = *host.swap_pages_per_s >= kSwapPagesPerS ? 1 : 0;
    }
    if (host.memory_pressure_some_ratio) {
      v[kMemSomeN] = 1;
      v[kMemSomeSum] = *host.memory_pressure_some_ratio;
    }
    if (host.memory_pressure_full_ratio) {
      v[kMemFullN] = 1;
      v[kMemFullSum] = *host.memory_pressure_full_ratio;
    }
    w.push(t_s, v);
    state.last_s = t_s;
  }
  const TrackKey key{Kind::HostMemoryPressure, state.key_gpu.value_or(held.empty() ? 0 : held.front()), 0};
  const bool was = tracker.is_active(key);
  auto mean = [&](HostMemoryChannel n, HostMemoryChannel sum) -> std::optional<double> {
    if (w.sum(n) < kMinSamples) return std::nullopt;
    return w.sum(sum) / w.sum(n);
  };
  const auto swapping = mean(kSwapN, kSwappingN);
  const auto swap_rate = mean(kSwapN, kSwapSum);
  const auto some = mean(kMemSomeN, kMemSomeSum);
  const auto full = mean(kMemFullN, kMemFullSum);
  const double relax = was ? kMemoryPressureExitFactor : 1.0;
  std::optional<Severity> sev;
  if (sampled && w.covered_s() >= kMinShortCoverageS * kCoverageSlack &&
      ((swapping && *swapping >= (was ? kSwapExitShare : kSwapShare)) ||
       (some && *some >= kMemoryPressureSomeRatio * relax) || (full && *full >= kMemoryPressureFullRatio * relax)))
    sev = Severity::Warning;
  tracker.update(key, sev, t_s, [&](Finding& f) {
    f.gpus = held;
    f.uuids.clear();
    f.cause = "memory";
    f.evidence = {{"window_s", w.covered_s()}};
    if (swapping) f.evidence["swapping_ratio"] = *swapping;
    if (swap_rate) f.evidence["swap_pages_per_s"] = *swap_rate;
    if (some) f.evidence["memory_pressure_some_ratio"] = *some;
    if (full) f.evidence["memory_pressure_full_ratio"] = *full;
    f.impact = full ? std::optional(std::clamp(*full, 0.0, 1.0)) : std::nullopt;
    std::string what;
    if (swapping && *swapping >= kSwapExitShare)
      what = fmt::format("swapping {:.0f} pages/s {:.0f} % of the time", swap_rate.value_or(0), *swapping * 100);
    if (some || full)
      what += fmt::format("{}memory stalls: some {:.0f} %, full {:.0f} % (PSI avg10)", what.empty() ? "" : "; ",
                          some.value_or(0) * 100, full.value_or(0) * 100);
    f.detail = fmt::format("the host is short of memory while a job holds {}: {} over the last {:.0f} s; every step "
                           "waits for pages", job_gpu_list(held), what, w.covered_s());
    f.summary = fmt::format("host memory pressure: {}", what);
  });
  if (tracker.find(key)) state.key_gpu = key.gpu;
  else if (!sev) state.key_gpu.reset();
}

}  // namespace gpuwatch::diagnose
