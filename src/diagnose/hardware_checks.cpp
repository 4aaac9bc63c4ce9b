// The Hardware kinds of kinds.def (ecc_uncorrectable, row_remap, recovery_action, pcie_degraded,
// xid, gpu_lost, ...): the checks DCGM's health watches do, from the counters and states of each
// sample, and the driver settings that cost time.
#include <fmt/format.h>

#include <cmath>

#include "diagnose/check_context.hpp"
#include "diagnose/xid_catalog.hpp"

namespace gpuwatch::diagnose {
namespace {

using namespace thresholds;

// Increase of a counter since the previous sample (0 when either is absent or it went down).
double increase(const std::optional<double>& now, std::optional<double>& before) {
  double d = now && before && *now > *before ? *now - *before : 0;
  if (now) before = now;
  return d;
}

void check_ecc(CheckContext& c) {
  const GpuSample& s = c.sample;
  GpuState& st = c.state;
  const double d = std::max(increase(s.ecc_uncorrected_volatile, st.prev_ecc_volatile),
                            increase(s.ecc_uncorrected_aggregate, st.prev_ecc_aggregate));
  if (d > 0) {
    if (s.t_s - st.last_ecc_increase_s > kHardwareHoldS) st.ecc_new = 0;
    st.last_ecc_increase_s = s.t_s;
    st.ecc_new += d;
  }
  std::optional<Severity> sev;
  if (s.t_s - st.last_ecc_increase_s <= kHardwareHoldS) sev = Severity::Critical;
  else if (s.ecc_uncorrected_volatile && *s.ecc_uncorrected_volatile > 0) sev = Severity::Warning;
  c.tracker.update(c.key(Kind::EccUncorrectable), sev, s.t_s, [&](Finding& f) {
    f.evidence = {{"new_errors", st.ecc_new}};
    if (s.ecc_uncorrected_volatile) f.evidence["volatile_total"] = *s.ecc_uncorrected_volatile;
    if (s.ecc_uncorrected_aggregate) f.evidence["aggregate_total"] = *s.ecc_uncorrected_aggregate;
    f.detail = st.ecc_new > 0 ? fmt::format("{:.0f} new uncorrectable ECC error(s) (volatile total {:.0f})", st.ecc_new,
                                            s.ecc_uncorrected_volatile.value_or(st.ecc_new))
                              : fmt::format("{:.0f} uncorrectable ECC error(s) since the driver loaded",
                                            s.ecc_uncorrected_volatile.value_or(0));
    f.summary = fmt::format("uncorrectable ECC errors ({:.0f}): results may be wrong; drain and reset",
                            s.ecc_uncorrected_volatile.value_or(st.ecc_new));
  }, kImmediate);
}

void check_remap(CheckContext& c) {
  const GpuSample& s = c.sample;
  GpuState& st = c.state;
  const double unc = increase(s.remap_uncorrectable, st.prev_remap_uncorrectable);
  const double cor = increase(s.remap_correctable, st.prev_remap_correctable);
  if (unc + cor > 0) {
    if (s.t_s - st.last_remap_increase_s > kHardwareHoldS) st.remap_new = 0;
    st.last_remap_increase_s = s.t_s;
    st.remap_new += unc + cor;
  }
  std::optional<Severity> sev;
  if (s.t_s - st.last_remap_increase_s <= kHardwareHoldS) sev = unc > 0 || c.active(Kind::RowRemap) ? Severity::Warning : Severity::Info;
  if (s.remap_pending.value_or(false)) sev = Severity::Warning;
  if (s.remap_failure.value_or(false)) sev = Severity::Critical;
  c.tracker.update(c.key(Kind::RowRemap), sev, s.t_s, [&](Finding& f) {
    f.evidence = {{"new_remaps", st.remap_new}};
    if (s.remap_uncorrectable) f.evidence["uncorrectable_total"] = *s.remap_uncorrectable;
    if (s.remap_correctable) f.evidence["correctable_total"] = *s.remap_correctable;
    if (s.remap_pending) f.evidence["pending"] = *s.remap_pending ? 1 : 0;
    if (s.remap_failure) f.evidence["failure"] = *s.remap_failure ? 1 : 0;
    f.detail = s.remap_failure.value_or(false) ? std::string("row remapping failed: the GPU has no spare rows left")
                                               : fmt::format("{:.0f} memory row(s) remapped recently{}", st.remap_new,
                                                             s.remap_pending.value_or(false) ? "; a remap is pending a reset" : "");
    f.summary = s.remap_failure.value_or(false) ? std::string("row remapping failed: replace the GPU")
                                                : fmt::format("{:.0f} memory rows remapped{}", st.remap_new,
                                                              s.remap_pending.value_or(false) ? ", reset pending" : "");
  }, kImmediate);
}

const char* action_name(int a) {
  switch (a) {
    case 1: return "GPU Reset";
    case 2: return "Node Reboot";
    case 3: return "Drain P2P";
    case 4: return "Drain and Reset";
    default: return "unknown action";
  }
}

void check_recovery(CheckContext& c) {
  const GpuSample& s = c.sample;
  std::optional<Severity> sev;
  const int action = s.recovery_action ? static_cast<int>(std::lround(*s.recovery_action)) : 0;
  if (action > 0) sev = action == 3 ? Severity::Warning : Severity::Critical;
  c.tracker.update(c.key(Kind::RecoveryAction), sev, s.t_s, [&](Finding& f) {
    f.evidence = {{"recovery_action", static_cast<double>(action)}};
    f.detail = fmt::format("the driver asks for \"{}\" (gpu_recovery_action {})", action_name(action), action);
    f.summary = fmt::format("driver asks for recovery: {}", action_name(action));
  }, kImmediate);
}

void check_pcie(CheckContext& c) {
  const Window& w = c.state.short_w;
  const GpuSample& s = c.sample;
  std::optional<Severity> sev;
  auto degraded = share(w, kPcieDegradedN, kPcieLoadN, kMinSamples);
  if (w.covered_s() >= kMinShortCoverageS && degraded &&
      *degraded >= (c.active(Kind::PcieDegraded) ? 0.5 : kPcieDegradedShare))
    sev = Severity::Warning;
  c.tracker.update(c.key(Kind::PcieDegraded), sev, s.t_s, [&](Finding& f) {
    f.evidence = {{"degraded_ratio", *degraded}};
    if (s.pcie_gen) f.evidence["link_gen"] = *s.pcie_gen;
    if (s.pcie_gen_max) f.evidence["link_gen_max"] = *s.pcie_gen_max;
    if (s.pcie_width) f.evidence["link_width"] = *s.pcie_width;
    if (s.pcie_width_max) f.evidence["link_width_max"] = *s.pcie_width_max;
    f.detail = fmt::format("under load the PCIe link runs at gen {:.0f} x{:.0f}, below its gen {:.0f} x{:.0f}",
                           s.pcie_gen.value_or(0), s.pcie_width.value_or(0), s.pcie_gen_max.value_or(0),
                           s.pcie_width_max.value_or(0));
    f.summary = fmt::format("PCIe link degraded: gen{:.0f} x{:.0f} of gen{:.0f} x{:.0f}", s.pcie_gen.value_or(0),
                            s.pcie_width.value_or(0), s.pcie_gen_max.value_or(0), s.pcie_width_max.value_or(0));
  });
}

// persistence_off: the driver unloads when no client holds the GPU, so every start of a job or
// tool pays its initialisation again. A setting, not a measurement: no evidence to wait for.
void check_persistence(CheckContext& c) {
  const GpuSample& s = c.sample;
  std::optional<Severity> sev;
  if (s.persistence_mode && !*s.persistence_mode && applies_to(Kind::PersistenceOff, s.vendor)) sev = Severity::Info;
  c.tracker.update(c.key(Kind::PersistenceOff), sev, s.t_s, [&](Finding& f) {
    f.evidence = {{"persistence_mode", 0}};
    f.detail = "persistence mode is off: the driver unloads when no process uses the GPU, and the next one "
               "waits for it to initialise again (up to seconds per GPU)";
    f.summary = "persistence mode off: each start waits for the driver";
  }, kImmediate);
}

}  // namespace

void check_xids(FindingTracker& tracker, GpuState& st, unsigned gpu, double t_s) {
  if (!applies_to(Kind::Xid, st.vendor)) return;  // Xids are NVIDIA's driver's
  for (const auto& [xid, rec] : st.xids) {
    const XidInfo info = xid_info(xid);
    std::optional<Severity> sev;
    if (t_s - rec.last_s <= kHardwareHoldS) sev = info.severity;
    tracker.update(TrackKey{Kind::Xid, gpu, xid}, sev, t_s, [&](Finding& f) {
      f.evidence = {{"xid", static_cast<double>(xid)}, {"count", static_cast<double>(rec.count)},
                    {"last_s", rec.last_s}};
      f.detail = fmt::format("Xid {} x{}: {}", xid, rec.count, info.meaning);
      f.summary = fmt::format("Xid {}: {}", xid, info.meaning);
      f.advice = {std::string(info.action)};
    }, kImmediate);
  }
}

void check_hardware(CheckContext& c) {
  check_ecc(c);
  check_remap(c);
  check_recovery(c);
  check_pcie(c);
  check_persistence(c);
  check_xids(c.tracker, c.state, c.sample.index, c.sample.t_s);
}

void check_lost(CheckContext& c) {
  const GpuSample& s = c.sample;
  if (s.lost && !c.state.lost_since_s) c.state.lost_since_s = s.t_s;
  if (!s.lost) c.state.lost_since_s.reset();
  std::optional<Severity> sev;
  if (s.lost) sev = Severity::Critical;
  c.tracker.update(c.key(Kind::GpuLost), sev, s.t_s, [&](Finding& f) {
    f.evidence = {{"lost_s", s.t_s - *c.state.lost_since_s}};
    f.detail = s.vendor == core::Vendor::Nvidia ? "NVML reports GPU_IS_LOST: the GPU no longer answers (fallen off the bus?)"
                                                : "the GPU no longer answers its driver (fallen off the bus?)";
    f.summary = "GPU lost: not answering (fallen off the bus?)";
  }, Hysteresis{1, 0});
}

}  // namespace gpuwatch::diagnose
