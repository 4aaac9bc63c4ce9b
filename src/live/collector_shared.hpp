#pragma once
// Inside the Collector (collector.cpp, gpu_worker.cpp): one GPU's sampling state (GpuWorker), what
// its thread last published (Slot), and the state the sampling threads share with the Collector.
// Not for use outside src/live/collector*.cpp, gpu_worker.cpp and host_thread.cpp.
#include <sys/timerfd.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "attribution/snapshot_processes.hpp"
#include "live/collector.hpp"
#include "live/energy_integrator.hpp"
#include "sampler/profiling_sampler.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch::live {

using Steady = std::chrono::steady_clock;

// What one GPU's thread last published.
struct Slot {
  bool has_sample = false;
  Steady::time_point started{};
  double duration_seconds = 0;
  std::map<std::uint32_t, std::string> users;
  std::map<std::uint32_t, host::ProcessInfo> process_info;  // CollectorOptions::process_info_of
  std::optional<attribution::DeviceOwners> owners;  // issue 15; absent: attribution off
  std::optional<double> estimated_energy_joules;    // issue 29: power.draw integrated; absent: no power reading yet
};

// One GPU's sampling state (its Sampler remembers what the GPU does not support, the caches of
// its processes), used by one thread at a time: its own, or the pool thread that owns the GPU.
class GpuWorker {
 public:
  GpuWorker(const backend::DeviceBackend& backend, const CollectorOptions& options, unsigned index);

  unsigned index() const { return index_; }

  // One sample of the GPU for the tick SCHEDULED (NVML, /proc, attribution, the on_sample hook):
  // outside the collector's lock.
  void sample(Steady::time_point scheduled);

  // Makes the latest sample the one readers see. Under the collector's lock.
  void publish(Collector::Shared& shared);

 private:
  struct CachedInfo {
    host::ProcessInfo info;
    Steady::time_point read_at;
  };
  const CollectorOptions options_;
  unsigned index_;
  sampler::Sampler sampler_;
  sampler::ProfilingSampler profiling_;  // GPM activity and MIG devices (state between samples)
  sampler::SampleOptions sample_options_;
  const std::vector<core::FieldId> identity_;
  core::Snapshot local_;
  std::map<std::uint32_t, std::optional<std::string>> user_cache_;
  host::CpuTracker cpu_;  // CPU % of this GPU's processes between readings
  std::map<std::uint32_t, CachedInfo> info_cache_;
  std::vector<std::uint32_t> attributed_pids_;  // the processes of the latest attribution
  std::optional<Steady::time_point> attributed_at_;
  // The latest sample's results, until published.
  Steady::time_point started_{};
  double duration_ = 0;
  std::map<std::uint32_t, std::string> users_;
  std::map<std::uint32_t, host::ProcessInfo> process_info_;
  std::optional<attribution::DeviceOwners> owners_;
  EnergyIntegrator energy_;  // issue 29: power.draw over this GPU's samples
};

struct Collector::Shared {
  mutable std::mutex mutex;
  std::condition_variable wake;      // stop requests
  std::condition_variable exited;    // a thread finished
  bool stopping = false;
  unsigned running = 0;
  core::Snapshot latest;             // devices[i] is GPU i
  std::vector<Slot> slots;
  std::map<std::pair<std::string, int>, std::uint64_t> errors;
  std::vector<std::thread> threads;

  // CollectorOptions::one_thread: the GPUs sampled one after the other by the pool thread. A
  // GPU's worker is used only by the thread that owns the GPU (the pool, or the thread a hung
  // GPU kept); ownership changes under the mutex.
  std::vector<std::unique_ptr<GpuWorker>> workers;
  unsigned pool_generation = 0;           // which thread is the pool now
  std::vector<unsigned> pool_gpus;        // the GPUs it owns
  std::vector<unsigned> pool_tick;        // the GPUs of its current tick, in order
  std::size_t pool_position = 0;          // ... the one being sampled
  std::optional<unsigned> pool_busy;      // the GPU inside a sample now
  Steady::time_point pool_busy_since{};
  Steady::time_point pool_scheduled{};    // the current tick
  int timer_fd = -1;                      // fires when a sample overruns the hang budget
  std::chrono::milliseconds hang_budget{};

  Shared() = default;
  Shared(const Shared&) = delete;
  Shared& operator=(const Shared&) = delete;
  ~Shared() {
    if (timer_fd >= 0) ::close(timer_fd);
  }

  void arm_timer(Steady::time_point at) const {
    if (timer_fd < 0) return;
    itimerspec spec{};
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count();
    spec.it_value.tv_sec = static_cast<time_t>(ns / 1000000000);
    spec.it_value.tv_nsec = static_cast<long>(ns % 1000000000);
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;  // 0 would disarm
    ::timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &spec, nullptr);
  }
  void disarm_timer() const {
    if (timer_fd < 0) return;
    itimerspec spec{};
    ::timerfd_settime(timer_fd, 0, &spec, nullptr);
  }
};

// The host thread (host_thread.cpp, CollectorOptions::host): samples the host every interval until
// stopping, publishing each sample into shared.latest.host.
void run_host(std::shared_ptr<Collector::Shared> shared, CollectorOptions options);

}  // namespace gpuwatch::live
