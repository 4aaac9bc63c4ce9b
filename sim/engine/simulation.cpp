#include "sim/engine/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

#include "sim/engine/noise.hpp"
#include "sim/engine/simulation_internal.hpp"

namespace gpuwatch::sim {
using namespace detail;

PidSources PidSources::from_environment() {
  PidSources out;
  if (const char* s = std::getenv("GPUWATCH_SIM_PIDS")) out.standins = parse_standins(s);
  return out;
}

std::map<std::pair<int, int>, unsigned> PidSources::parse_standins(std::string_view text) {
  std::map<std::pair<int, int>, unsigned> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string item(text.substr(pos, end - pos));
    int g = 0, p = 0;
    unsigned pid = 0;
    if (std::sscanf(item.c_str(), "%d:%d=%u", &g, &p, &pid) == 3 && pid > 0) out[{g, p}] = pid;
    pos = end + 1;
  }
  return out;
}


Simulation::Simulation(Scenario scenario, const PidSources& pids) : scenario_(std::move(scenario)) {
  const auto n = scenario_.gpus.size();
  pids_.resize(n);
  pid_files_.resize(n);
  cycle_s_.assign(n, 0);
  lost_at_.assign(n, kInf);
  events_.resize(n);
  integrals_.resize(n);
  for (unsigned g = 0; g < n; ++g) {
    auto& gpu = scenario_.gpus[g];
    auto resolve = [&](const Process& p, int index) -> unsigned {
      if (p.pid) return *p.pid;
      if (!p.pid_file.empty()) return 0u;  // read when evaluated (live_pid)
      if (!p.pid_env.empty()) {
        const char* v = std::getenv(p.pid_env.c_str());
        return v ? static_cast<unsigned>(std::strtoul(v, nullptr, 10)) : 0;
      }
      auto it = pids.standins.find({static_cast<int>(g), index});
      return it == pids.standins.end() ? 0 : it->second;
    };
    int index = 0;
    for (const auto& p : gpu.processes) pids_[g].push_back(resolve(p, index++));
    for (const auto& inst : gpu.mig)
      for (const auto& p : inst.processes) pids_[g].push_back(resolve(p, index++));
    for (const auto& p : gpu.processes) pid_files_[g].push_back(p.pid_file);
    for (const auto& inst : gpu.mig)
      for (const auto& p : inst.processes) pid_files_[g].push_back(p.pid_file);
    index = 0;
    auto remember = [&](const Process& p, unsigned pid) {
      if (pid == 0) return;
      std::string name = p.command.substr(0, p.command.find(' '));
      names_.emplace(pid, name);
    };
    for (const auto& p : gpu.processes) remember(p, pids_[g][static_cast<std::size_t>(index++)]);
    for (const auto& inst : gpu.mig)
      for (const auto& p : inst.processes) remember(p, pids_[g][static_cast<std::size_t>(index++)]);
    double cycle = 0;
    for (const auto& ph : gpu.phases) {
      if (ph.kind == PhaseKind::GpuLost && lost_at_[g] == kInf) lost_at_[g] = cycle;
      cycle += ph.duration_s;
    }
    cycle_s_[g] = cycle;
    expand_events(g);
  }
}

unsigned Simulation::live_pid(unsigned g, std::size_t index) const {
  const std::string& file = pid_files_[g][index];
  if (file.empty()) return pids_[g][index];
  std::FILE* f = std::fopen(file.c_str(), "r");  // absent or unreadable: the process is not running (yet)
  if (!f) return 0;
  unsigned long pid = 0;
  if (std::fscanf(f, "%lu", &pid) != 1 || pid > 4294967294ul) pid = 0;
  std::fclose(f);
  return static_cast<unsigned>(pid);
}

const std::string* Simulation::process_name(unsigned pid) const {
  auto it = names_.find(pid);
  return it == names_.end() ? nullptr : &it->second;
}

void Simulation::expand_events(unsigned g) {
  auto& out = events_[g];
  const auto& gpu = scenario_.gpus[g];
  for (const auto& e : gpu.events) out.push_back(e);
  if (lost_at_[g] < kInf) out.push_back({lost_at_[g], 0x8, 79});
  const double horizon = gpu.loop && cycle_s_[g] > 0 ? 7 * 86400.0 : cycle_s_[g] + 86400.0;
  constexpr std::size_t kMaxEvents = 200000;
  for (std::int64_t it = 0; out.size() < kMaxEvents; ++it) {
    double start = static_cast<double>(it) * cycle_s_[g];
    if (start > horizon || (it > 0 && (!gpu.loop || cycle_s_[g] <= 0))) break;
    double offset = start;
    for (std::size_t i = 0; i < gpu.phases.size(); ++i) {
      const auto& ph = gpu.phases[i];
      bool last = i + 1 == gpu.phases.size();
      double len = ph.duration_s;
      if (last && !gpu.loop) len = horizon - offset;  // the last phase holds
      if (ph.kind == PhaseKind::EccErrors) {
        auto emit = [&](double per_min, std::uint64_t type, std::uint64_t data, int recovery = -1) {
          if (per_min <= 0) return;
          double step = 60.0 / per_min;
          for (double x = step; x <= len && out.size() < kMaxEvents; x += step)
            out.push_back({offset + x, type, data, recovery});
        };
        emit(ph.sbe_per_min, 0x1, 0);
        emit(ph.dbe_per_min, 0x2, 0);
        if (ph.xid != 0) emit(ph.dbe_per_min > 0 ? ph.dbe_per_min : ph.sbe_per_min, 0x8, ph.xid, ph.recovery_action);
        emit(ph.remap_per_min > 0 ? ph.remap_per_min : (ph.sbe_per_min + ph.dbe_per_min) / 10, kEventRowRemap, 0);
      }
      offset += ph.duration_s;
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.at_s < b.at_s; });
}

int Simulation::phase_at(unsigned g, double t, double& tau, std::int64_t& iteration) const {
  const auto& gpu = scenario_.gpus[g];
  iteration = 0;
  if (gpu.phases.empty()) return -1;
  if (t < 0) t = 0;
  double cycle = cycle_s_[g];
  if (gpu.loop && cycle > 0) {
    iteration = static_cast<std::int64_t>(std::floor(t / cycle));
    t -= static_cast<double>(iteration) * cycle;
  }
  double start = 0;
  for (std::size_t i = 0; i < gpu.phases.size(); ++i) {
    double end = start + gpu.phases[i].duration_s;
    if (t < end || i + 1 == gpu.phases.size()) {
      tau = t - start;
      return static_cast<int>(i);
    }
    start = end;
  }
  return -1;
}

Simulation::Instant Simulation::instant(unsigned g, double t) const {
  const auto& gpu = scenario_.gpus[g];
  const auto& v = gpu.values;
  Instant in;
  const double p_idle = num_or(v[key_index(Key::PowerDraw)], 60);
  const double p_limit = num_or(v[key_index(Key::EnforcedPowerLimit)], num_or(v[key_index(Key::PowerLimit)], 300));
  const double gfx_max = num_or(v[key_index(Key::ClocksMaxGraphics)], 1500);
  const double gfx_idle = num_or(v[key_index(Key::ClocksCurrentGraphics)], 300);
  const double mem_max = num_or(v[key_index(Key::ClocksMaxMemory)], 1500);
  const double mem_idle = num_or(v[key_index(Key::ClocksCurrentMemory)], mem_max);
  const double t_idle = num_or(v[key_index(Key::TemperatureGpu)], 35);
  const double slowdown = num_or(v[key_index(Key::TemperatureGpuSlowdown)], 87);
  const double idle_pstate = pstate_number(v[key_index(Key::Pstate)]);
  double tau = 0;
  std::int64_t iteration = 0;
  int idx = phase_at(g, t, tau, iteration);
  in.phase = idx;
  // Idle baseline.
  in.power_w = p_idle;
  in.gfx = gfx_idle;
  in.mem_clock = mem_idle;
  in.temp = t_idle;
  in.reasons = static_cast<std::uint64_t>(num_or(v[key_index(Key::ClocksEventReasonsActive)], 1));
  in.pstate = idle_pstate;
  if (idx < 0) {
    in.nvlink_share = 1;  // a GPU without phases: its NVLink rate as written
    return in;
  }
  const Phase& ph = gpu.phases[static_cast<std::size_t>(idx)];
  in.processes_visible = ph.processes_visible;
  const double I = std::clamp(ph.intensity, 0.0, 1.5);
  auto busy = [&](double util, double mem_util, double power_frac, double clock_frac) {
    in.util = util;
    in.mem_util = mem_util;
    in.power_w = p_idle + (p_limit - p_idle) * std::clamp(power_frac, 0.0, 1.0);
    in.gfx = std::max(gfx_idle, gfx_max * clock_frac);
    in.mem_clock = mem_max;
    in.temp = t_idle + 42 * std::clamp(power_frac, 0.0, 1.0);
    in.reasons = 0;
    in.pstate = 0;
  };
  switch (ph.kind) {
    case PhaseKind::Idle:
    case PhaseKind::GpuLost: break;
    case PhaseKind::Training:
    case PhaseKind::EccErrors: busy(98 * std::min(I, 1.0) + 2, 40 * I, 0.82 * I, 1.0); break;
    case PhaseKind::MemoryLeak:
      busy(97, 38, 0.8 * I, 1.0);
      in.leak_fraction = ph.duration_s > 0 ? std::clamp(tau / ph.duration_s, 0.0, 1.0) : 1.0;
      if (ph.leak_mib_per_s > 0) in.leak_mib = ph.leak_mib_per_s * tau;
      break;
    case PhaseKind::Fragmentation: {
      // What NVML shows of a caching allocator: the process's memory rises to what it
      // reserved (quickly at first, then a plateau); device memory follows the processes.
      busy(90, 35, 0.7 * I, 1.0);
      const double growth = ph.cache_growth_s > 0 ? ph.cache_growth_s : std::max(1.0, ph.duration_s * 0.5);
      in.fragmentation = ph.cache_fraction * (1.0 - std::exp(-3.0 * std::max(0.0, tau) / growth));
      break;
    }
    case PhaseKind::DataloaderStarvation: {
      const double kBusy = ph.busy_s, kPeriod = ph.busy_s + ph.idle_s;
      double x = std::fmod(tau, kPeriod);
      // The share of time kernels run: a ramp over the busy part (ramp_s < 0, the classic saw),
      // over its first ramp_s, or none (ramp_s 0: busy the whole busy part), then the gap.
      const double ramp = ph.ramp_s < 0 ? kBusy : std::min(ph.ramp_s, kBusy);
      double u = x >= kBusy ? 0.0 : x < ramp ? 100.0 * x / ramp : 100.0;
      busy(u, u * 0.4, 0.8 * I * u / 100.0, u > 0 ? 1.0 : 0.0);
      if (u == 0) { in.reasons = 1; in.gfx = gfx_idle; in.mem_clock = mem_idle; }
      in.temp = t_idle + 42 * 0.8 * I * 0.5;  // the average load heats the board
      break;
    }
    case PhaseKind::SmallKernels: busy(99, 8, 0.22 * I * ph.sm_share / 0.30, 1.0); break;
    case PhaseKind::MemoryBound: busy(96, 88 * std::min(I, 1.0) + 5, 0.6 * I, 0.9); break;
    case PhaseKind::Hung:
      in.util = 0;
      in.mem_util = 0;
      in.power_w = p_idle * 1.35;
      in.gfx = gfx_max;
      in.mem_clock = mem_max;
      in.temp = t_idle + 8;
      in.reasons = 0;
      in.pstate = 0;
      break;
    case PhaseKind::NcclHang:
      // A collective spinning after a rank died: a kernel always resident (100 %), a few SMs
      // polling a flag, no memory traffic (memory_util: some, as NCCL's LL protocols poll in
      // memory), power near idle, clocks up.
      in.util = 100;
      in.mem_util = ph.memory_util;
      in.power_w = p_idle * ph.power_ratio;
      in.gfx = gfx_max;
      in.mem_clock = mem_max;
      in.temp = t_idle + 6;
      in.reasons = 0;
      in.pstate = 0;
      break;
    case PhaseKind::ThermalRunaway: {
      busy(100, 45, 0.85, 1.0);
      double start_temp = t_idle + 42 * 0.85;
      double peak = ph.peak_temp_c > 0 ? ph.peak_temp_c : slowdown + 6;
      double x = ph.duration_s > 0 ? std::clamp(tau / ph.duration_s, 0.0, 1.0) : 1.0;
      in.temp = start_temp + (peak - start_temp) * x;
      double over = std::clamp((in.temp - (slowdown - 4)) / 10.0, 0.0, 1.0);
      if (in.temp >= slowdown - 4) in.reasons |= 0x20;   // SwThermalSlowdown
      if (in.temp >= slowdown) in.reasons |= 0x40;       // HwThermalSlowdown
      in.gfx = gfx_max * (1.0 - 0.6 * over);
      in.power_w = p_idle + (p_limit - p_idle) * 0.85 * (1.0 - 0.5 * over);
      in.pstate = over > 0.5 ? 2 : 0;
      break;
    }
    case PhaseKind::PowerCapping:
      busy(100, 50, 1.0, ph.clock_ratio);
      in.power_w = p_limit * 0.995;
      in.reasons = 0x4;  // SwPowerCap
      in.temp = t_idle + 45;
      break;
    case PhaseKind::Replay: {
      in.replay = true;
      double at = tau;
      if (ph.replay_loop && !ph.rows.empty() && ph.rows.back().t_s > 0) at = std::fmod(tau, ph.rows.back().t_s + 1);
      const ReplayRow* row = &ph.rows.front();
      for (const auto& r : ph.rows) {
        if (r.t_s > at) break;
        row = &r;
      }
      in.row = row;
      for (const auto& [k, val] : row->values) {
        if (!val.is_number()) continue;
        if (k == Key::UtilizationGpu) in.util = val.number;
        if (k == Key::PowerDraw) in.power_w = val.number;
        if (k == Key::TemperatureGpu) in.temp = val.number;
      }
      if (in.util > 5) { in.gfx = gfx_max; in.mem_clock = mem_max; in.reasons = 0; in.pstate = 0; in.mem_util = in.util * 0.35; }
      break;
    }
  }
  (void)iteration;
  const double load = std::clamp(in.util / 100.0, 0.0, 1.0);
  in.nvlink_share = ph.nvlink == NvlinkTraffic::Steady ? 1.0 : ph.nvlink == NvlinkTraffic::Gaps ? 1.0 - load : load;
  return in;
}

void Simulation::integrate_counters(unsigned g, double t, double& energy_j, std::array<double, 3>& throttled,
                                    std::array<double, 2>& nvlink_kib) const {
  const auto& values = scenario_.gpus[g].values;
  const std::array<double, 2> nvlink_rate = {std::max(0.0, num_or(values[key_index(Key::NvlinkTxThroughput)], 0)),
                                             std::max(0.0, num_or(values[key_index(Key::NvlinkRxThroughput)], 0))};
  std::lock_guard lock(integral_mutex_);
  auto& acc = integrals_[g];
  auto target = static_cast<std::int64_t>(std::floor(std::max(0.0, t) / kEnergyStep));
  if (target < acc.step) acc = Integral{};  // time went backwards (another epoch): restart
  // A far-away epoch (days of scenario time) is integrated in coarser steps so that the
  // first call stays fast; the usual case walks the 1 s grid.
  constexpr std::int64_t kMaxSteps = 2'000'000;
  const std::int64_t stride = std::max<std::int64_t>(1, (target - acc.step) / kMaxSteps);
  while (acc.step < target) {
    std::int64_t n = std::min(stride, target - acc.step);
    Instant in = instant(g, static_cast<double>(acc.step) * kEnergyStep);
    double dt = static_cast<double>(n) * kEnergyStep;
    acc.energy_j += in.power_w * dt;
    if (in.reasons & 0x4) acc.throttled_s[0] += dt;
    if (in.reasons & 0x20) acc.throttled_s[1] += dt;
    if (in.reasons & 0x40) acc.throttled_s[2] += dt;
    for (std::size_t i = 0; i < 2; ++i) acc.nvlink_kib[i] += nvlink_rate[i] * in.nvlink_share * dt;
    acc.step += n;
  }
  double frac = std::max(0.0, t) - static_cast<double>(target) * kEnergyStep;
  Instant now = instant(g, static_cast<double>(target) * kEnergyStep);
  energy_j = acc.energy_j + now.power_w * frac;
  throttled = acc.throttled_s;
  if (now.reasons & 0x4) throttled[0] += frac;
  if (now.reasons & 0x20) throttled[1] += frac;
  if (now.reasons & 0x40) throttled[2] += frac;
  for (std::size_t i = 0; i < 2; ++i) nvlink_kib[i] = acc.nvlink_kib[i] + nvlink_rate[i] * now.nvlink_share * frac;
}

}  // namespace gpuwatch::sim
