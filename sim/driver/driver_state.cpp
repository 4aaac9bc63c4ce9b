#include "sim/driver/driver_state.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <thread>

#include <fmt/format.h>

#include "sim/engine/noise.hpp"
#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/sim_api.hpp"
#include "sim/engine/vendor_gpus.hpp"

namespace gpuwatch::sim::driver {
namespace {

constexpr std::int64_t kQuantumMs = 100;  // dynamic values are recomputed at most this often

nvmlDevice_st g_devices[kMaxGpus];
nvmlDevice_st g_mig_devices[kMaxGpus][kMaxMig];

// A virtual clock for `gpuwatch sim record`, which renders hours of a scenario in seconds:
// set through gpuwatchSimSetClock (0: the real clock again).
std::atomic<std::int64_t> g_virtual_ms{0};

std::int64_t wall_ms() {
  if (std::int64_t v = g_virtual_ms.load(std::memory_order_relaxed); v != 0) return v;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

// "Driver load time": when the library was loaded into the process. GPUWATCH_SIM_CLOCK_MS
// stops the clock there for good (the virtual clock, set before anything reads it).
std::int64_t g_load_ms = 0;
__attribute__((constructor)) void remember_load_time() {
  if (const char* c = std::getenv(kClockEnv); c && *c) g_virtual_ms.store(std::strtoll(c, nullptr, 10));
  g_load_ms = wall_ms();
}

}  // namespace

// Not an NVML function: gpuwatch's own control of the simulated clock. UNIX_MS is the time
// every call reads from now on (scenario time = UNIX_MS - GPUWATCH_SIM_EPOCH_MS); 0 restores
// the real clock. Returns 0.
GW_EXPORT int gpuwatchSimSetClock(long long unix_ms) noexcept {
  g_virtual_ms.store(unix_ms, std::memory_order_relaxed);
  return 0;
}

// Not an NVML function: the loaded scenario's time_scale (scenario seconds per wall second; 1 before
// nvmlInit loaded one). gpuwatch scales its alert rules' durations by it, so `for: 5m` means five
// scenario minutes on a scenario that runs 20 times faster than the wall clock.
GW_EXPORT double gpuwatchSimTimeScale() noexcept { return DriverState::get().time_scale(); }

DriverState& DriverState::get() {
  static DriverState* state = new DriverState();  // never destroyed: callers may outlive statics
  return *state;
}

DriverState::DriverState() {
  for (unsigned g = 0; g < kMaxGpus; ++g) {
    g_devices[g] = {g, -1};
    for (unsigned m = 0; m < kMaxMig; ++m) g_mig_devices[g][m] = {g, static_cast<int>(m)};
  }
}

nvmlReturn_t DriverState::load() {
  if (loaded_) return load_error_;
  loaded_ = true;
  const char* name = std::getenv(kScenarioEnv);
  std::string scenario = name && *name ? name : "demo";
  auto sc = load_scenario(scenario);
  if (!sc) {
    std::fprintf(stderr, "gpuwatch simulated NVML driver: %s\n", sc.error().message.c_str());
    load_error_ = NVML_ERROR_DRIVER_NOT_LOADED;
    return load_error_;
  }
  if (sc->gpus.size() > kMaxGpus) {
    std::fprintf(stderr, "gpuwatch simulated NVML driver: %s: %zu GPUs, at most %u are supported\n",
                 sc->source.c_str(), sc->gpus.size(), kMaxGpus);
    load_error_ = NVML_ERROR_DRIVER_NOT_LOADED;
    return load_error_;
  }
  for (const auto& gpu : sc->gpus) {
    if (gpu.mig.size() > kMaxMig) {
      std::fprintf(stderr, "gpuwatch simulated NVML driver: %s: at most %u MIG instances per GPU\n", sc->source.c_str(), kMaxMig);
      load_error_ = NVML_ERROR_DRIVER_NOT_LOADED;
      return load_error_;
    }
  }
  epoch_ms_ = g_load_ms ? g_load_ms : wall_ms();
  if (const char* e = std::getenv(kEpochEnv); e && *e) epoch_ms_ = std::strtoll(e, nullptr, 10);
  time_scale_ = sc->time_scale;
  load_error_ = static_cast<nvmlReturn_t>(sc->driver.init_error);
  nvidia_gpus_ = gpus_of_vendor(*sc, core::Vendor::Nvidia);
  sim_ = std::make_unique<Simulation>(std::move(*sc), PidSources::from_environment());
  caches_ = std::make_unique<GpuCache[]>(std::max<std::size_t>(1, sim_->gpu_count()));
  for (std::size_t g = 0; g < sim_->gpu_count(); ++g) caches_[g].sample.processes.reserve(64);
  faults_.assign(kFnCount, {});
  for (const auto& f : sim_->scenario().faults) {
    has_faults_ = true;
    if (f.function == "*") any_fn_faults_.push_back(&f);
    else if (auto fn = find_fn(f.function)) faults_[static_cast<std::size_t>(*fn)].push_back(&f);
  }
  return load_error_;
}

nvmlReturn_t DriverState::init(unsigned /*flags*/) {
  std::lock_guard lock(mutex_);
  nvmlReturn_t r = load();
  if (r != NVML_SUCCESS) return r;
  init_count_.fetch_add(1, std::memory_order_acq_rel);
  return NVML_SUCCESS;
}

nvmlReturn_t DriverState::shutdown() {
  std::lock_guard lock(mutex_);
  if (init_count_.load() > 0) init_count_.fetch_sub(1, std::memory_order_acq_rel);
  return NVML_SUCCESS;
}

nvmlDevice_t DriverState::handle(unsigned gpu, int mig) {
  if (gpu >= kMaxGpus) return nullptr;
  if (mig < 0) return &g_devices[gpu];
  if (static_cast<unsigned>(mig) >= kMaxMig) return nullptr;
  return &g_mig_devices[gpu][mig];
}

bool DriverState::serves(unsigned scenario_gpu) const {
  return sim_ && scenario_gpu < sim_->gpu_count() && sim_->scenario().gpus[scenario_gpu].vendor == core::Vendor::Nvidia;
}

const nvmlDevice_st* DriverState::resolve(nvmlDevice_t device) const {
  if (!sim_) return nullptr;
  auto p = reinterpret_cast<std::uintptr_t>(device);
  auto n = sim_->gpu_count();
  auto base = reinterpret_cast<std::uintptr_t>(&g_devices[0]);
  if (p >= base && p < base + n * sizeof(nvmlDevice_st) && (p - base) % sizeof(nvmlDevice_st) == 0)
    return serves(device->gpu) ? device : nullptr;
  auto mbase = reinterpret_cast<std::uintptr_t>(&g_mig_devices[0][0]);
  if (p >= mbase && p < mbase + sizeof(g_mig_devices) && (p - mbase) % sizeof(nvmlDevice_st) == 0) {
    if (serves(device->gpu) && static_cast<std::size_t>(device->mig) < sim_->scenario().gpus[device->gpu].mig.size())
      return device;
  }
  return nullptr;
}

std::int64_t DriverState::now_quantum() const {
  std::int64_t d = wall_ms() - epoch_ms_;
  return d >= 0 ? d / kQuantumMs : -((-d + kQuantumMs - 1) / kQuantumMs);
}

double DriverState::t_of_quantum(std::int64_t q) const {
  return static_cast<double>(q * kQuantumMs) / 1000.0 * time_scale_;
}

double DriverState::now_t() const { return t_of_quantum(now_quantum()); }

std::uint64_t DriverState::now_us() const {
  return static_cast<std::uint64_t>(epoch_ms_ + now_quantum() * kQuantumMs) * 1000;
}

double DriverState::t_of_us(std::uint64_t us) const {
  return (static_cast<double>(us) / 1000.0 - static_cast<double>(epoch_ms_)) / 1000.0 * time_scale_;
}

double DriverState::exact_t() const {
  return static_cast<double>(wall_ms() - epoch_ms_) / 1000.0 * time_scale_;
}

bool newest_period(const View& v, std::int64_t& k, Simulation::PeriodSample& out) {
  const auto& phases = v.spec().phases;
  const int phase = v.sample().phase;
  if (phases.empty() || (phase >= 0 && phases[static_cast<std::size_t>(phase)].kind == PhaseKind::Replay)) return false;
  k = v.sim().period_index(v.gpu(), DriverState::get().exact_t());
  out = v.sim().period_sample(v.gpu(), k);
  return true;
}

std::uint64_t DriverState::us_of_t(double t) const {
  const double us = static_cast<double>(epoch_ms_) * 1000.0 + t / time_scale_ * 1e6;
  return us <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(us));
}

nvmlReturn_t DriverState::apply_faults(Fn fn, int gpu, double t) const {
  if (!has_faults_) return NVML_SUCCESS;
  nvmlReturn_t result = NVML_SUCCESS;
  auto run = [&](const Fault* f) {
    if (f->gpu >= 0 && f->gpu != gpu) return;
    if (t < f->from_s || t >= f->until_s) return;
    if (f->delay_ms > 0) std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long long>(f->delay_ms * 1000)));
    if (f->hang_s > 0) std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long long>(f->hang_s * 1000)));
    if (f->error != 0 && result == NVML_SUCCESS) result = f->error;
  };
  for (const Fault* f : faults_[static_cast<std::size_t>(fn)]) run(f);
  if (fn != Fn::nvmlErrorString && fn != Fn::nvmlShutdown)
    for (const Fault* f : any_fn_faults_) run(f);
  return result;
}

const DynamicSample& DriverState::sample(unsigned gpu, std::int64_t q, std::unique_lock<std::mutex>& lock) {
  GpuCache& c = caches_[gpu];
  lock = std::unique_lock<std::mutex>(c.mutex);
  if (c.quantum != q) {
    sim_->evaluate(gpu, t_of_quantum(q), c.sample);
    c.quantum = q;
  }
  return c.sample;
}

nvmlReturn_t View::number(Key key, double& out) const {
  const std::size_t i = key_index(key);
  if (dev_.mig >= 0) {
    // A MIG device answers identity and memory; the rest is not supported on it.
    if (key != Key::ComputeCap && key != Key::PciBusId && key != Key::PciDeviceId && key != Key::PciSubDeviceId &&
        key != Key::PciDomain && key != Key::PciBus && key != Key::PciDevice)
      return NVML_ERROR_NOT_SUPPORTED;
  }
  if (sample_.has.test(i)) {
    out = sample_.num[i];
    return NVML_SUCCESS;
  }
  const Value& v = sim_.static_value(dev_.gpu, key);
  switch (v.kind) {
    case Value::Kind::Number: out = v.number; return NVML_SUCCESS;
    case Value::Kind::Error: return v.error;
    default: return NVML_ERROR_NOT_SUPPORTED;
  }
}

nvmlReturn_t View::text(Key key, const std::string*& out) const {
  const Value& v = sim_.static_value(dev_.gpu, key);
  switch (v.kind) {
    case Value::Kind::Error: return v.error;
    case Value::Kind::Absent: return NVML_ERROR_NOT_SUPPORTED;
    default: out = &v.text; return NVML_SUCCESS;
  }
}

nvmlReturn_t View::uint(Key key, double scale, unsigned int& out) const {
  double x = 0;
  if (nvmlReturn_t r = number(key, x); r != NVML_SUCCESS) return r;
  double y = std::round(x * scale);
  out = y <= 0 ? 0u : y >= 4294967295.0 ? 4294967295u : static_cast<unsigned int>(y);
  return NVML_SUCCESS;
}

nvmlReturn_t View::ull(Key key, double scale, unsigned long long& out) const {
  const Value& v = sim_.static_value(dev_.gpu, key);
  if (scale == 1.0 && !sample_.has.test(key_index(key)) && v.is_number() && dev_.mig < 0) {
    out = v.integer;  // exact for large integers
    return NVML_SUCCESS;
  }
  double x = 0;
  if (nvmlReturn_t r = number(key, x); r != NVML_SUCCESS) return r;
  double y = std::round(x * scale);
  out = y <= 0 ? 0ull : static_cast<unsigned long long>(y);
  return NVML_SUCCESS;
}

nvmlReturn_t View::flag(Key key, int& out) const {
  if (dev_.mig >= 0 && key != Key::MigModeCurrent && key != Key::MigModePending) return NVML_ERROR_NOT_SUPPORTED;
  const Value& v = sim_.static_value(dev_.gpu, key);
  if (v.is_error()) return v.error;
  if (v.is_number()) { out = v.number != 0 ? 1 : 0; return NVML_SUCCESS; }
  if (v.is_absent()) return NVML_ERROR_NOT_SUPPORTED;
  const std::string& s = v.text;
  if (s == "Enabled" || s == "Yes" || s == "Active" || s == "On") { out = 1; return NVML_SUCCESS; }
  if (s == "Disabled" || s == "No" || s == "Not Active" || s == "Off") { out = 0; return NVML_SUCCESS; }
  return NVML_ERROR_NOT_SUPPORTED;
}

std::string mig_uuid(const Simulation& sim, unsigned g, unsigned m) {
  std::uint64_t h = hash_mix(sim.scenario().seed, g, 0x313u, m);
  return fmt::format("MIG-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", h >> 32, (h >> 16) & 0xFFFF, h & 0xFFFF, (m << 8) | g,
                     hash_mix(h, 1, 2) & 0xFFFFFFFFFFFFull);
}

std::string mig_name(const Simulation& sim, unsigned g, unsigned m) {
  return fmt::format("{} MIG {}", sim.static_value(g, Key::Name).text, sim.scenario().gpus[g].mig[m].profile);
}

nvmlReturn_t copy_string(const std::string& s, char* buf, unsigned int length) {
  if (!buf) return NVML_ERROR_INVALID_ARGUMENT;
  if (s.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  s.copy(buf, s.size());
  buf[s.size()] = '\0';
  return NVML_SUCCESS;
}

}  // namespace gpuwatch::sim::driver
