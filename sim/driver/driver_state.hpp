#pragma once
// The stand-in driver's process-wide state: the loaded scenario, init reference count,
// device handles (stable pointers into static arrays), the scenario clock, the cache of
// dynamic values per GPU and time quantum, and fault injection.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "nvml/nvml_abi.h"
#include "sim/engine/simulation.hpp"
#include "sim/engine/symbol_names.hpp"

// The opaque handle types of the ABI, defined here: a device handle points into a static array.
struct nvmlDevice_st {
  unsigned gpu;
  int mig;  // -1: the whole GPU; else the MIG instance index
};

namespace gpuwatch::sim::driver {

inline constexpr double kMiB = 1048576.0;  // bytes per MiB (NVML reports some sizes in MiB)

#define GW_EXPORT extern "C" __attribute__((visibility("default")))

inline constexpr unsigned kMaxGpus = 64;
inline constexpr unsigned kMaxMig = 8;
inline constexpr unsigned kNoInstance = 0xFFFFFFFFu;

struct GpuCache {
  std::mutex mutex;
  std::int64_t quantum = -1;
  DynamicSample sample;
};

class DriverState {
 public:
  static DriverState& get();

  nvmlReturn_t init(unsigned flags);
  nvmlReturn_t shutdown();
  bool initialized() const { return init_count_.load(std::memory_order_acquire) > 0; }
  const Simulation* sim() const { return sim_.get(); }
  // The driver serves the scenario's NVIDIA GPUs only: NVML index I is scenario GPU
  // nvidia_gpus()[I] (vendor_gpus.hpp). Handles, faults, processes and events keep the
  // scenario index (nvmlDevice_st::gpu).
  const std::vector<unsigned>& nvidia_gpus() const { return nvidia_gpus_; }
  bool serves(unsigned scenario_gpu) const;

  nvmlDevice_t handle(unsigned gpu, int mig = -1);
  const nvmlDevice_st* resolve(nvmlDevice_t device) const;  // nullptr when not one of ours

  double now_t() const;                  // scenario seconds now (quantized)
  std::int64_t now_quantum() const;
  std::uint64_t now_us() const;          // wall clock, µs since 1970 (quantized)
  std::uint64_t us_of_t(double t) const;  // the wall clock (µs since 1970) at scenario time T
  double exact_t() const;
  double t_of_us(std::uint64_t us) const;  // scenario seconds at wall clock US (µs since 1970)                 // scenario seconds now, to the millisecond (not quantized)
  double t_of_quantum(std::int64_t q) const;
  double time_scale() const { return time_scale_; }

  // Runs the faults of FN on GPU (-1: a call without a device) at scenario time T:
  // sleeps for delays/hangs and returns the injected error (SUCCESS: none).
  nvmlReturn_t apply_faults(Fn fn, int gpu, double t) const;

  // The cached sample of GPU for quantum Q; the caller holds lock.
  const DynamicSample& sample(unsigned gpu, std::int64_t q, std::unique_lock<std::mutex>& lock);

 private:
  DriverState();
  nvmlReturn_t load();

  std::mutex mutex_;
  std::atomic<int> init_count_{0};
  bool loaded_ = false;
  nvmlReturn_t load_error_ = NVML_SUCCESS;
  std::unique_ptr<Simulation> sim_;
  std::vector<unsigned> nvidia_gpus_;
  std::unique_ptr<GpuCache[]> caches_;
  std::int64_t epoch_ms_ = 0;
  double time_scale_ = 1.0;
  std::vector<std::vector<const Fault*>> faults_;  // by Fn
  std::vector<const Fault*> any_fn_faults_;
  bool has_faults_ = false;
};

// The view of one device at one moment that the exported functions read from.
class View {
 public:
  View(const Simulation& sim, const nvmlDevice_st& dev, const DynamicSample& sample)
      : sim_(sim), dev_(dev), sample_(sample) {}
  unsigned gpu() const { return dev_.gpu; }
  int mig() const { return dev_.mig; }
  const Simulation& sim() const { return sim_; }
  const DynamicSample& sample() const { return sample_; }
  const GpuSpec& spec() const { return sim_.scenario().gpus[dev_.gpu]; }

  // The number for KEY in display units; the NVML error when the value is an error,
  // absent or text that is not a number.
  nvmlReturn_t number(Key key, double& out) const;
  nvmlReturn_t text(Key key, const std::string*& out) const;
  // Helpers with unit conversion (value * scale, rounded).
  nvmlReturn_t uint(Key key, double scale, unsigned int& out) const;
  nvmlReturn_t ull(Key key, double scale, unsigned long long& out) const;
  // Enabled/Disabled, Yes/No, Active/Not Active -> 1/0.
  nvmlReturn_t flag(Key key, int& out) const;

 private:
  const Simulation& sim_;
  const nvmlDevice_st& dev_;
  const DynamicSample& sample_;
};

// The driver's newest utilization sample period of V's GPU now (Simulation::period_sample), from
// the unquantized clock so that a poller's phase against the period is never fixed by the
// 100 ms cache quantum: K is its index, OUT its sample. False where utilization is not modelled
// by periods: a GPU without phases, or replaying recorded rows (played exactly as recorded).
bool newest_period(const View& v, std::int64_t& k, Simulation::PeriodSample& out);

// Identity of MIG instance M of GPU G.
std::string mig_uuid(const Simulation& sim, unsigned g, unsigned m);
std::string mig_name(const Simulation& sim, unsigned g, unsigned m);

// Copies S into BUF of LENGTH: INSUFFICIENT_SIZE when it does not fit with its NUL.
nvmlReturn_t copy_string(const std::string& s, char* buf, unsigned int length);

// The body of every device function: init check, handle check, faults, lost GPU,
// then BODY(View) under the GPU's cache lock. Never throws.
template <class Body>
nvmlReturn_t with_device(Fn fn, nvmlDevice_t device, Body&& body) noexcept {
  try {
    auto& st = DriverState::get();
    if (!st.initialized()) return NVML_ERROR_UNINITIALIZED;
    const nvmlDevice_st* dev = st.resolve(device);
    if (!dev) return NVML_ERROR_INVALID_ARGUMENT;
    std::int64_t q = st.now_quantum();
    double t = st.t_of_quantum(q);
    if (nvmlReturn_t r = st.apply_faults(fn, static_cast<int>(dev->gpu), t); r != NVML_SUCCESS) return r;
    if (t >= st.sim()->lost_at(dev->gpu)) return NVML_ERROR_GPU_IS_LOST;
    std::unique_lock<std::mutex> lock;
    const DynamicSample& sample = st.sample(dev->gpu, q, lock);
    return body(View(*st.sim(), *dev, sample));
  } catch (...) {
    return NVML_ERROR_UNKNOWN;
  }
}

// System-level functions (no device): init check and faults.
template <class Body>
nvmlReturn_t with_system(Fn fn, Body&& body) noexcept {
  try {
    auto& st = DriverState::get();
    if (!st.initialized()) return NVML_ERROR_UNINITIALIZED;
    if (nvmlReturn_t r = st.apply_faults(fn, -1, st.now_t()); r != NVML_SUCCESS) return r;
    return body(*st.sim());
  } catch (...) {
    return NVML_ERROR_UNKNOWN;
  }
}

}  // namespace gpuwatch::sim::driver
