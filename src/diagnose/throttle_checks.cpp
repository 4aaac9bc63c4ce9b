// thermal_throttle, power_cap, other_throttle: the share of time the clocks were held down
// (violation counters when the GPU has them, else the share of samples with the reason bit)
// and the SM clock lost meanwhile.
#include <fmt/format.h>

#include <algorithm>

#include "diagnose/check_context.hpp"

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;

struct ThrottleClass {
  Kind kind;
  Channel reason_n, clock_loss, counter_dt, counter;
};

struct Measure {
  double share = 0;       // of time throttled
  double clock_loss = 0;  // mean SM clock lost while throttled, 0..1
  bool from_counters = false;
};

std::optional<Measure> measure(const Window& w, const ThrottleClass& k) {
  if (w.covered_s() < kMinShortCoverageS) return std::nullopt;
  Measure m;
  const double reason_n = w.sum(k.reason_n);
  if (w.sum(kReasonN) >= kMinSamples) {
    m.share = reason_n / w.sum(kReasonN);
    m.clock_loss = reason_n > 0 ? w.sum(k.clock_loss) / reason_n : 0;
  } else if (w.sum(k.counter_dt) < kMinShortCoverageS) {
    return std::nullopt;
  }
  // The counters see every microsecond, not only the sampled instants: prefer them.
  if (w.sum(k.counter_dt) >= 0.5 * w.covered_s()) {
    m.share = std::clamp(w.sum(k.counter) / w.sum(k.counter_dt), 0.0, 1.0);
    m.from_counters = true;
  }
  return m;
}

std::optional<Severity> level(const Measure& m, bool was_active) {
  if (was_active) return m.share >= kThrottleExitShare ? std::optional(m.share >= kThrottleWarnShare ? Severity::Warning : Severity::Info) : std::nullopt;
  if (m.share >= kThrottleWarnShare) return Severity::Warning;
  if (m.share >= kThrottleInfoShare) return Severity::Info;
  return std::nullopt;
}

void fill_common(Finding& f, const Measure& m, const Window& w) {
  f.evidence["throttled_ratio"] = m.share;
  f.evidence["sm_clock_loss_ratio"] = m.clock_loss;
  f.evidence["window_s"] = w.covered_s();
  f.impact = std::clamp(m.share * m.clock_loss, 0.0, 1.0);
}

void check_thermal(CheckContext& c) {
  const Window& w = c.state.short_w;
  const ThrottleClass k{Kind::ThermalThrottle, kThermalN, kThermalClockLoss, kCounterDtThermal, kCounterThermal};
  auto m = measure(w, k);
  auto hw = share(w, kHwThermalN, kReasonN, kMinSamples);
  const bool critical = hw && *hw >= kThrottleCriticalHwShare;
  std::optional<Severity> sev = m ? level(*m, c.active(k.kind)) : std::nullopt;
  if (sev.has_value() && critical) sev.emplace(Severity::Critical);
  c.tracker.update(c.key(k.kind), sev, c.sample.t_s, [&](Finding& f) {
    fill_common(f, *m, w);
    if (hw) f.evidence["hw_thermal_ratio"] = *hw;
    if (c.sample.temp_c) {
      // The hottest moment the finding saw (the current reading may be after the cooling).
      f.evidence["temperature_c"] = *c.sample.temp_c;
      auto peak = f.evidence.find("max_temperature_c");
      f.evidence["max_temperature_c"] = peak == f.evidence.end() ? *c.sample.temp_c : std::max(peak->second, *c.sample.temp_c);
    }
    if (c.sample.slowdown_c) f.evidence["slowdown_temperature_c"] = *c.sample.slowdown_c;
    auto peak = f.evidence.find("max_temperature_c");
    const std::string temp = peak != f.evidence.end() ? fmt::format(" up to {:.0f} °C", peak->second) : "";
    f.detail = fmt::format("thermal slowdown held the clocks down {:.0f} % of the last {:.0f} s{}, costing {:.0f} % of "
                           "the SM clock{}", m->share * 100, w.covered_s(), temp, m->clock_loss * 100,
                           c.sample.slowdown_c ? fmt::format(" (slowdown at {:.0f} °C)", *c.sample.slowdown_c) : "");
    f.summary = fmt::format("thermal throttling {:.0f} % of the time, SM clock -{:.0f} %{}", m->share * 100,
                            m->clock_loss * 100, temp);
  });
}

void check_power(CheckContext& c) {
  const Window& w = c.state.short_w;
  const ThrottleClass k{Kind::PowerCap, kPowerCapN, kPowerCapClockLoss, kCounterDtPowerCap, kCounterPowerCap};
  auto m = measure(w, k);
  std::optional<Severity> sev = m ? level(*m, c.active(k.kind)) : std::nullopt;
  const auto& s = c.sample;
  const bool lowered = s.power_limit_w && s.power_default_limit_w &&
                       *s.power_limit_w < kPowerLimitLoweredRatio * *s.power_default_limit_w;
  // Power-capped at full load with the default limit is how big matmuls run: info, unless
  // it costs much clock; a lowered limit is a warning.
  if (sev && *sev == Severity::Warning && !lowered && m->clock_loss < kPowerCapWarnClockLoss) sev = Severity::Info;
  c.tracker.update(c.key(k.kind), sev, s.t_s, [&](Finding& f) {
    fill_common(f, *m, w);
    if (s.power_w) f.evidence["power_w"] = *s.power_w;
    if (s.power_limit_w) f.evidence["power_limit_w"] = *s.power_limit_w;
    if (s.power_default_limit_w) f.evidence["power_default_limit_w"] = *s.power_default_limit_w;
    const std::string limit =
        s.power_limit_w ? fmt::format(" at the {:.0f} W limit{}", *s.power_limit_w,
                                      lowered ? fmt::format(" (default {:.0f} W)", *s.power_default_limit_w) : "")
                        : "";
    f.detail = fmt::format("the power cap held the clocks down {:.0f} % of the last {:.0f} s{}, costing {:.0f} % of the "
                           "SM clock", m->share * 100, w.covered_s(), limit, m->clock_loss * 100);
    f.summary = fmt::format("power-capped {:.0f} % of the time{}, SM clock -{:.0f} %", m->share * 100, limit,
                            m->clock_loss * 100);
  });
}

void check_other(CheckContext& c) {
  const Window& w = c.state.short_w;
  const ThrottleClass k{Kind::OtherThrottle, kOtherN, kOtherClockLoss, kCounterDtOther, kCounterOther};
  auto m = measure(w, k);
  std::optional<Severity> sev = m ? level(*m, c.active(k.kind)) : std::nullopt;
  const std::uint64_t r = c.sample.reasons.value_or(0);
  c.tracker.update(c.key(k.kind), sev, c.sample.t_s, [&](Finding& f) {
    fill_common(f, *m, w);
    f.evidence["reasons_active"] = static_cast<double>(r);
    std::string which;
    if (r & kReasonHwPowerBrake) which += "power brake, ";
    if ((r & kReasonHwSlowdown) && !(r & (kReasonHwThermal | kReasonHwPowerBrake))) which += "hardware slowdown, ";
    if (r & kReasonSyncBoost) which += "sync boost, ";
    if (which.empty()) which = "a hardware slowdown, power brake or sync boost, ";
    which.resize(which.size() - 2);
    f.detail = fmt::format("{} held the clocks down {:.0f} % of the last {:.0f} s, costing {:.0f} % of the SM clock",
                           which, m->share * 100, w.covered_s(), m->clock_loss * 100);
    f.summary = fmt::format("clocks held down by {} {:.0f} % of the time", which, m->share * 100);
  });
}

}  // namespace

void check_throttling(CheckContext& c) {
  check_thermal(c);
  check_power(c);
  check_other(c);
}

}  // namespace gpuwatch::diagnose
