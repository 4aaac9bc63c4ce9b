// Simulation::evaluate: the dynamic values of one GPU at scenario time t.
#include <algorithm>
#include <cmath>

#include "sim/engine/noise.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/simulation_internal.hpp"

namespace gpuwatch::sim {

using namespace detail;

void Simulation::evaluate(unsigned g, double t, DynamicSample& out) const {
  const auto& gpu = scenario_.gpus[g];
  const auto& v = gpu.values;
  out.t = t;
  out.has.reset();
  out.processes.clear();
  out.mig_used_mib.assign(gpu.mig.size(), 0);
  out.lost = t >= lost_at_[g];
  const bool dynamic = !gpu.phases.empty();
  auto set = [&](Key k, double x) {
    // Text keys that evaluation turns into numbers: the P-state, the recovery action (events).
    const bool numeric_text = (k == Key::Pstate || k == Key::GpuRecoveryAction) && v[key_index(k)].kind == Value::Kind::Text;
    if (v[key_index(k)].is_number() || numeric_text) {
      out.num[key_index(k)] = x;
      out.has.set(key_index(k));
    }
  };
  const double noise = gpu.noise;
  const std::uint64_t seed = gpu.seed;
  Instant in = instant(g, t);
  out.phase = in.phase;

  // Processes and memory.
  const double total = num_or(v[key_index(Key::MemoryTotal)], 0);
  const double reserved = num_or(v[key_index(Key::MemoryReserved)], 0);
  const double baseline = num_or(v[key_index(Key::MemoryUsed)], 0);
  double proc_sum = 0;
  std::size_t pi = 0;
  // memory.used as written (a static GPU) or replayed (a recording, `sim import`) is the device's
  // total, the processes' memory included: only the device bounds a process then (issue 9: a
  // process recorded at 61440 MiB was replayed as 19645, what was left beside its own 61441).
  const bool used_includes_processes = !dynamic || in.replay;
  const double avail = std::max(0.0, total - reserved - (used_includes_processes ? 0.0 : baseline));
  double leak_extra = 0;
  if ((in.leak_fraction >= 0 || in.fragmentation > 0) && !gpu.processes.empty()) {
    double held = 0;
    for (const auto& p : gpu.processes) held += p.memory_mib;
    const double room = std::max(0.0, avail - held - 64);
    if (in.leak_mib >= 0) leak_extra = std::min(room, in.leak_mib);
    else if (in.leak_fraction >= 0) leak_extra = room * in.leak_fraction;
    else leak_extra = room * in.fragmentation;  // the allocator's cache, counted in the process
  }
  // Utilization is the busy share of the driver's last whole sample period (simulation_periods.cpp).
  const PeriodSample period = dynamic ? period_sample(g, period_index(g, t)) : PeriodSample{};
  const double util_now = period.util;
  bool first = true;
  for (const auto& p : gpu.processes) {
    unsigned pid = live_pid(g, pi++);
    if (!in.processes_visible) continue;
    // Memory counts on the device whether or not the process has a PID to show.
    double mem = p.memory_mib + (first && p.follows_phase ? leak_extra : 0);
    first = false;
    mem = std::min(mem, avail);
    proc_sum += mem;
    if (pid == 0) continue;
    ProcessSample s{pid, mem, p.compute, p.graphics, 0, 0, -1};
    if (p.compute && dynamic) {
      s.sm_util = static_cast<unsigned>(std::lround(std::clamp(util_now, 0.0, 100.0)));
      s.mem_util = static_cast<unsigned>(std::lround(std::clamp(period.mem_util, 0.0, 100.0)));
    }
    out.processes.push_back(s);
  }
  for (std::size_t m = 0; m < gpu.mig.size(); ++m) {
    const auto& inst = gpu.mig[m];
    double used = inst.memory_used_mib;
    for (const auto& p : inst.processes) {
      unsigned pid = live_pid(g, pi++);
      if (!in.processes_visible) continue;
      used += p.memory_mib;  // not in proc_sum: the parent's memory.used has the instances already (parser)
      if (pid == 0) continue;
      out.processes.push_back({pid, std::min(p.memory_mib, inst.memory_mib), p.compute, p.graphics, 0, 0,
                               static_cast<int>(m)});
    }
    out.mig_used_mib[m] = std::min(used, inst.memory_mib);
  }
  // The recovery action the latest event asked for (a static GPU's events too).
  int recovery_action = -1;
  for (const auto& e : events_[g]) {
    if (e.at_s > t) break;
    if (e.recovery_action >= 0) recovery_action = e.recovery_action;
  }
  if (recovery_action >= 0) set(Key::GpuRecoveryAction, recovery_action);

  if (!dynamic) {  // static scenario: every value as written; NVLink's counters grow at the rate written
    out.nvlink_kib = {std::max(0.0, num_or(v[key_index(Key::NvlinkTxThroughput)], 0)) * std::max(0.0, t),
                      std::max(0.0, num_or(v[key_index(Key::NvlinkRxThroughput)], 0)) * std::max(0.0, t)};
    return;
  }

  double used = baseline + proc_sum;
  if (in.replay && in.row)
    for (const auto& [k, val] : in.row->values)
      if (k == Key::MemoryUsed && val.is_number()) used = val.number;
  used = std::min(used, std::max(0.0, total - reserved));
  set(Key::MemoryUsed, std::round(used));
  set(Key::MemoryFree, std::max(0.0, total - reserved - std::round(used)));

  // Utilization: the newest sample of the driver's buffer (noise and whole percent included).
  set(Key::UtilizationGpu, period.util);
  set(Key::UtilizationMemory, period.mem_util);

  // Power follows the load with a lag of about two seconds.
  double p = 0.5 * in.power_w + 0.3 * instant(g, t - 1).power_w + 0.2 * instant(g, t - 2).power_w;
  p += (in.power_w > 0 ? 0.01 * in.power_w : 0) * noise * smooth_noise(seed, g, kPower, t, 2.0);
  const double p_limit = num_or(v[key_index(Key::EnforcedPowerLimit)], 1e9);
  p = std::clamp(p, 1.0, p_limit * 1.02);
  set(Key::PowerDraw, std::round(p * 100) / 100);
  set(Key::PowerDrawAverage, std::round(p * 100) / 100);
  set(Key::PowerDrawInstant, power_instant_w(g, t));

  // Temperature approaches its target with a time constant of about 20 s.
  double temp = 0, wsum = 0;
  for (int i = 0; i < 8; ++i) {
    double dt = i * 8.0;
    double w = std::exp(-dt / 20.0);
    temp += w * instant(g, t - dt).temp;
    wsum += w;
  }
  temp = temp / wsum + 0.6 * noise * smooth_noise(seed, g, kTemp, t, 0.2);
  set(Key::TemperatureGpu, std::round(temp));
  set(Key::TemperatureMemory, std::round(temp + 4));
  set(Key::FanSpeed, std::round(std::clamp(30 + (temp - 40) * 1.6, 30.0, 100.0)));

  // Clocks in the driver's 15 MHz steps.
  auto step15 = [](double mhz) { return std::round(mhz / 15) * 15; };
  double gfx = in.gfx;
  if (in.reasons == 0 && in.util > 0) gfx -= std::fabs(noise * 15 * unit_noise(seed, g, kClock, static_cast<std::int64_t>(t)));
  set(Key::ClocksCurrentGraphics, step15(gfx));
  set(Key::ClocksCurrentSm, step15(gfx));
  set(Key::ClocksCurrentMemory, in.mem_clock);
  const double video_max = num_or(v[key_index(Key::ClocksMaxVideo)], gfx);
  const double gfx_max = num_or(v[key_index(Key::ClocksMaxGraphics)], gfx);
  set(Key::ClocksCurrentVideo, step15(video_max * std::clamp(gfx / std::max(1.0, gfx_max), 0.0, 1.0)));
  set(Key::Pstate, in.pstate);
  // The PCIe link trains down at idle and back up under load (to a generation the scenario sets:
  // a link that trained at less than its maximum, gpuwatch doctor's degraded link).
  if (in.util > 0 && !gpu.overridden[key_index(Key::PcieLinkGenCurrent)]) {
    set(Key::PcieLinkGenCurrent, num_or(v[key_index(Key::PcieLinkGenMax)], 1));
    set(Key::PcieLinkGenGpucurrent, num_or(v[key_index(Key::PcieLinkGenGpumax)], 1));
  }
  set(Key::ClocksEventReasonsActive, static_cast<double>(in.reasons));
  // Monotonic counters: energy and time spent throttled, integrated on a fixed grid.
  double energy_j = 0;
  std::array<double, 3> throttled{};
  integrate_counters(g, t, energy_j, throttled, out.nvlink_kib);
  // NVLink's rate now (the key's value while the phase runs; the driver serves the counters above).
  set(Key::NvlinkTxThroughput, std::max(0.0, num_or(v[key_index(Key::NvlinkTxThroughput)], 0)) * in.nvlink_share);
  set(Key::NvlinkRxThroughput, std::max(0.0, num_or(v[key_index(Key::NvlinkRxThroughput)], 0)) * in.nvlink_share);
  set(Key::EnergyTotal, num_or(v[key_index(Key::EnergyTotal)], 0) + energy_j);
  set(Key::ClocksEventReasonsCountersSwPowerCap,
      num_or(v[key_index(Key::ClocksEventReasonsCountersSwPowerCap)], 0) + std::floor(throttled[0] * 1e6));
  set(Key::ClocksEventReasonsCountersSwThermalSlowdown,
      num_or(v[key_index(Key::ClocksEventReasonsCountersSwThermalSlowdown)], 0) + std::floor(throttled[1] * 1e6));
  set(Key::ClocksEventReasonsCountersHwThermalSlowdown,
      num_or(v[key_index(Key::ClocksEventReasonsCountersHwThermalSlowdown)], 0) + std::floor(throttled[2] * 1e6));
  set(Key::PcieTxThroughput, std::round(in.util * 120 * (1 + 0.1 * unit_noise(seed, g, 40, static_cast<std::int64_t>(t)))));
  set(Key::PcieRxThroughput, std::round(in.util * 450 * (1 + 0.1 * unit_noise(seed, g, 41, static_cast<std::int64_t>(t)))));

  // ECC counters, remapped rows and retired pages from the event schedule.
  const auto& evs = events_[g];
  double sbe = 0, dbe = 0, remaps = 0;
  for (const auto& e : evs) {
    if (e.at_s > t) break;
    if (e.type == 0x1) ++sbe;
    else if (e.type == 0x2) ++dbe;
    else if (e.type == kEventRowRemap) ++remaps;
  }
  if (sbe + dbe + remaps > 0) {
    for (std::size_t i = 0; i < kKeyCount; ++i) {
      std::string_view name = key_info(static_cast<Key>(i)).name;
      if (name.rfind("ecc.errors.", 0) != 0 || !v[i].is_number()) continue;
      bool corrected = name.rfind("ecc.errors.corrected.", 0) == 0;
      bool counts = name.find(".device_memory") != std::string_view::npos || name.find(".dram") != std::string_view::npos ||
                    name.ends_with(".total");
      if (counts) set(static_cast<Key>(i), v[i].number + (corrected ? sbe : dbe));
    }
    set(Key::RemappedRowsCorrectable, num_or(v[key_index(Key::RemappedRowsCorrectable)], 0) + remaps);
    set(Key::RemappedRowsUncorrectable, num_or(v[key_index(Key::RemappedRowsUncorrectable)], 0) + dbe);
    set(Key::RemappedRowsHistogramHigh, num_or(v[key_index(Key::RemappedRowsHistogramHigh)], 0) + remaps + dbe);
    set(Key::RetiredPagesSingleBitEccCount, num_or(v[key_index(Key::RetiredPagesSingleBitEccCount)], 0) + remaps);
    set(Key::RetiredPagesDoubleBitCount, num_or(v[key_index(Key::RetiredPagesDoubleBitCount)], 0) + dbe);
  }

  if (in.replay && in.row) {
    // Recorded keys play exactly, last so that nothing computed above (counters, PCIe
    // throughput, ECC) overrides them: the scenario's own values, then each row up to now.
    for (std::size_t i = 0; i < kKeyCount; ++i)
      if (gpu.overridden[i] && v[i].is_number()) set(static_cast<Key>(i), v[i].number);
    const auto& rows = gpu.phases[static_cast<std::size_t>(in.phase)].rows;
    for (const ReplayRow* r = rows.data(); r <= in.row; ++r)
      for (const auto& [k, val] : r->values)
        if (val.is_number()) set(k, val.number);
        else if (k == Key::Pstate) set(k, pstate_number(val));
    if (out.has.test(key_index(Key::MemoryUsed)) && !out.has.test(key_index(Key::MemoryFree)))
      set(Key::MemoryFree, std::max(0.0, total - reserved - out.num[key_index(Key::MemoryUsed)]));
  }
}

}  // namespace gpuwatch::sim
