#pragma once
// The simulated Level Zero driver's process-wide state: the scenario (loaded by zeInit from the
// same environment as the simulated NVML driver: GPUWATCH_SIM_SCENARIO, _EPOCH_MS, _PIDS,
// _CLOCK_MS), its Intel GPUs in scenario order, the clock, the handles the driver gives out
// (stable pointers into static arrays) and the body shared by every device function.
#include <level_zero/ze_api.h>
#include <level_zero/zes_api.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/busy_integral.hpp"
#include "sim/engine/simulation.hpp"

#define GW_ZE_EXPORT extern "C" __attribute__((visibility("default")))

// The opaque handle types of the API, defined here. INDEX is the device's position among the
// scenario's Intel GPUs (the order zeDeviceGet lists them in).
struct _ze_driver_handle_t {
  int unused;
};
struct _ze_device_handle_t {
  unsigned index;
};
struct _zes_mem_handle_t {
  unsigned index;
};
struct _zes_temp_handle_t {
  unsigned index;
  zes_temp_sensors_t sensor;
};
struct _zes_engine_handle_t {
  unsigned index;
  zes_engine_group_t group;
};
struct _zes_pwr_handle_t {
  unsigned index;
};
struct _zes_freq_handle_t {
  unsigned index;
};

namespace gpuwatch::sim::ze {

inline constexpr unsigned kMaxDevices = 64;
inline constexpr double kBytesPerMiB = 1048576.0;

class ZeState {
 public:
  static ZeState& get();

  // zeInit: loads the scenario once. UNINITIALIZED when it cannot be loaded or has no Intel GPU
  // (as the real driver on a machine without one), or for a VPU-only request.
  ze_result_t init(ze_init_flags_t flags);
  bool initialized() const;

  ze_driver_handle_t driver();
  unsigned device_count() const { return static_cast<unsigned>(intel_gpus_.size()); }
  ze_device_handle_t device(unsigned index);
  // The device behind H when it is one of ours (nullptr otherwise).
  const _ze_device_handle_t* resolve(ze_device_handle_t h) const;
  unsigned scenario_gpu(unsigned index) const { return intel_gpus_[index]; }
  const Simulation& sim() const { return *sim_; }

  // Scenario seconds now: exact (to the ms) and quantized to the 100 ms the NVML driver caches.
  double exact_t() const;
  double quantized_t() const;
  // The driver's µs timestamp at scenario time T: the wall clock (virtual or real) at T. Counters
  // are kept on the same wall clock (wall_seconds), as the simulated sysfs tree keeps hwmon's
  // energy1_input, so Δcounter/Δtimestamp is the scenario's rate whatever its time_scale.
  std::uint64_t timestamp_us(double t) const;
  double wall_seconds(double scenario_seconds) const { return scenario_seconds / time_scale_; }

  // The sample of device INDEX at quantized time T; LOCK holds its cache while the caller reads.
  const DynamicSample& sample(unsigned index, double t, std::unique_lock<std::mutex>& lock);
  double busy_seconds(unsigned index, double t) const { return busy_->busy_seconds(intel_gpus_[index], t); }

 private:
  ZeState() = default;
  ze_result_t load();

  struct Cache {
    std::mutex mutex;
    double t = -1e300;
    DynamicSample sample;
  };
  std::mutex mutex_;
  bool loaded_ = false;
  ze_result_t load_result_ = ZE_RESULT_SUCCESS;
  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<BusyIntegral> busy_;
  std::vector<unsigned> intel_gpus_;
  std::unique_ptr<Cache[]> caches_;
  std::int64_t epoch_ms_ = 0;
  double time_scale_ = 1.0;
};

// What the functions of one device read at one moment.
class DeviceView {
 public:
  DeviceView(unsigned index, double t, const DynamicSample& sample)
      : index_(index), t_(t), sample_(sample), state_(ZeState::get()) {}
  unsigned index() const { return index_; }
  double t() const { return t_; }
  const DynamicSample& sample() const { return sample_; }
  unsigned scenario_gpu() const { return state_.scenario_gpu(index_); }
  // KEY's number now (display units); nullopt when absent, an error or not a number.
  std::optional<double> number(Key key) const;
  // KEY's text; nullptr when absent or an error.
  const std::string* text(Key key) const;

 private:
  unsigned index_;
  double t_;
  const DynamicSample& sample_;
  ZeState& state_;
};

// The body of every device function: initialized, a device of ours, not lost (DEVICE_LOST after
// the scenario's lost time), then BODY(view) under the device's cache lock. Never throws.
template <class Body>
ze_result_t with_device(ze_device_handle_t h, Body&& body) noexcept {
  try {
    auto& st = ZeState::get();
    if (!st.initialized()) return ZE_RESULT_ERROR_UNINITIALIZED;
    const _ze_device_handle_t* dev = st.resolve(h);
    if (!dev) return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    const double t = st.quantized_t();
    if (t >= st.sim().lost_at(st.scenario_gpu(dev->index))) return ZE_RESULT_ERROR_DEVICE_LOST;
    std::unique_lock<std::mutex> lock;
    const DynamicSample& sample = st.sample(dev->index, t, lock);
    return body(DeviceView(dev->index, t, sample));
  } catch (...) {
    return ZE_RESULT_ERROR_UNKNOWN;
  }
}

// The handles of N domains in ITEMS given out as the Enum* functions do: *COUNT 0 or OUT null
// asks for the number; else up to *COUNT are written and *COUNT is set to how many.
template <class Handle>
ze_result_t enumerate(const std::vector<Handle>& items, uint32_t* count, Handle* out) {
  if (!count) return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  const auto n = static_cast<uint32_t>(items.size());
  if (*count == 0 || !out) {
    *count = n;
    return ZE_RESULT_SUCCESS;
  }
  const uint32_t k = *count < n ? *count : n;
  for (uint32_t i = 0; i < k; ++i) out[i] = items[i];
  *count = k;
  return ZE_RESULT_SUCCESS;
}

// Copies S into a fixed char array of SIZE (truncated, always NUL-terminated).
void copy_text(const std::string& s, char* out, std::size_t size);

}  // namespace gpuwatch::sim::ze
