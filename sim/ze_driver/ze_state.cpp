#include "sim/ze_driver/ze_state.hpp"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "sim/engine/scenario_loader.hpp"
#include "sim/engine/sim_api.hpp"
#include "sim/engine/vendor_gpus.hpp"

namespace gpuwatch::sim::ze {
namespace {

constexpr std::int64_t kZeQuantumMs = 100;  // the NVML driver's cache quantum, so both agree

_ze_driver_handle_t g_ze_driver{0};
_ze_device_handle_t g_ze_devices[kMaxDevices];

// The virtual clock: GPUWATCH_SIM_CLOCK_MS (read when the library loads), or what the simulated
// vendor tree sets through gpuwatch_sim_ze_set_clock_ms; 0 is the real clock.
std::atomic<std::int64_t> g_ze_virtual_ms{0};

std::int64_t ze_wall_ms() {
  if (std::int64_t v = g_ze_virtual_ms.load(std::memory_order_relaxed); v != 0) return v;
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

std::int64_t g_ze_load_ms = 0;
__attribute__((constructor)) void remember_ze_load_time() {
  if (const char* c = std::getenv(kClockEnv); c && *c) g_ze_virtual_ms.store(std::strtoll(c, nullptr, 10));
  g_ze_load_ms = ze_wall_ms();
}

}  // namespace

// Not a Level Zero function: moves this driver's clock to UNIX_MS (0: the real clock again), as
// gpuwatchSimSetClock does for the NVML driver. The simulated vendor tree calls it so that Level
// Zero and the sysfs files show the same moment.
GW_ZE_EXPORT void gpuwatch_sim_ze_set_clock_ms(long long unix_ms) noexcept {
  g_ze_virtual_ms.store(unix_ms, std::memory_order_relaxed);
}

ZeState& ZeState::get() {
  static ZeState* state = new ZeState();  // never destroyed: a client may call in from any thread
  return *state;
}

ze_result_t ZeState::load() {
  if (loaded_) return load_result_;
  loaded_ = true;
  load_result_ = ZE_RESULT_ERROR_UNINITIALIZED;
  const char* name = std::getenv(kScenarioEnv);
  auto sc = load_scenario(name && *name ? name : "demo");
  if (!sc) {
    std::fprintf(stderr, "gpuwatch simulated Level Zero driver: %s\n", sc.error().message.c_str());
    return load_result_;
  }
  std::vector<unsigned> intel = gpus_of_vendor(*sc, core::Vendor::Intel);
  if (intel.size() > kMaxDevices) {
    std::fprintf(stderr, "gpuwatch simulated Level Zero driver: %zu Intel GPUs, at most %u are supported\n",
                 intel.size(), kMaxDevices);
    return load_result_;
  }
  if (intel.empty()) return load_result_;  // no Intel GPU: no device to drive, as on a real host
  epoch_ms_ = g_ze_load_ms ? g_ze_load_ms : ze_wall_ms();
  if (const char* e = std::getenv(kEpochEnv); e && *e) epoch_ms_ = std::strtoll(e, nullptr, 10);
  time_scale_ = sc->time_scale;
  intel_gpus_ = std::move(intel);
  sim_ = std::make_unique<Simulation>(std::move(*sc), PidSources::from_environment());
  busy_ = std::make_unique<BusyIntegral>(*sim_);
  caches_ = std::make_unique<Cache[]>(intel_gpus_.size());
  for (unsigned i = 0; i < kMaxDevices; ++i) g_ze_devices[i] = {i};
  load_result_ = ZE_RESULT_SUCCESS;
  return load_result_;
}

ze_result_t ZeState::init(ze_init_flags_t flags) {
  // A request for VPUs only is not for this driver (a GPU driver).
  if (flags != 0 && !(flags & ZE_INIT_FLAG_GPU_ONLY)) return ZE_RESULT_ERROR_UNINITIALIZED;
  std::lock_guard lock(mutex_);
  return load();
}

bool ZeState::initialized() const { return sim_ != nullptr; }

ze_driver_handle_t ZeState::driver() { return &g_ze_driver; }

ze_device_handle_t ZeState::device(unsigned index) { return index < device_count() ? &g_ze_devices[index] : nullptr; }

const _ze_device_handle_t* ZeState::resolve(ze_device_handle_t h) const {
  const auto p = reinterpret_cast<std::uintptr_t>(h);
  const auto base = reinterpret_cast<std::uintptr_t>(&g_ze_devices[0]);
  if (p < base || p >= base + device_count() * sizeof(_ze_device_handle_t)) return nullptr;
  if ((p - base) % sizeof(_ze_device_handle_t) != 0) return nullptr;
  return h;
}

double ZeState::exact_t() const {
  return static_cast<double>(ze_wall_ms() - epoch_ms_) / 1000.0 * time_scale_;
}

double ZeState::quantized_t() const {
  const std::int64_t d = ze_wall_ms() - epoch_ms_;
  const std::int64_t q = d >= 0 ? d / kZeQuantumMs : -((-d + kZeQuantumMs - 1) / kZeQuantumMs);
  return static_cast<double>(q * kZeQuantumMs) / 1000.0 * time_scale_;
}

std::uint64_t ZeState::timestamp_us(double t) const {
  const double us = static_cast<double>(epoch_ms_) * 1000.0 + wall_seconds(t) * 1e6;
  return us <= 0 ? 0 : static_cast<std::uint64_t>(std::llround(us));
}

const DynamicSample& ZeState::sample(unsigned index, double t, std::unique_lock<std::mutex>& lock) {
  Cache& c = caches_[index];
  lock = std::unique_lock<std::mutex>(c.mutex);
  if (c.t != t) {
    sim_->evaluate(intel_gpus_[index], t, c.sample);
    c.t = t;
  }
  return c.sample;
}

std::optional<double> DeviceView::number(Key key) const {
  const std::size_t i = key_index(key);
  if (sample_.has.test(i)) return sample_.num[i];
  const Value& v = state_.sim().static_value(scenario_gpu(), key);
  if (v.is_number()) return v.number;
  return std::nullopt;
}

const std::string* DeviceView::text(Key key) const {
  const Value& v = state_.sim().static_value(scenario_gpu(), key);
  if (v.is_absent() || v.is_error()) return nullptr;
  return &v.text;
}

void copy_text(const std::string& s, char* out, std::size_t size) {
  if (!out || size == 0) return;
  const std::size_t n = s.size() < size - 1 ? s.size() : size - 1;
  s.copy(out, n);
  out[n] = '\0';
}

}  // namespace gpuwatch::sim::ze
