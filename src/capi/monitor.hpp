#pragma once
// The monitor behind gw_monitor: a sampler::Sampler on its own thread. The thread loads
// NVML, samples every interval on a drift-free grid, picks the GPUs of the selection and
// publishes the flat form (snapshot_keys.hpp) as an immutable shared sample; readers only
// copy a shared_ptr under a short lock. NVML is never called on a reader's thread.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "capi/snapshot_keys.hpp"
#include "core/result.hpp"

namespace gpuwatch::capi {

// One published sample.
struct FlatSample {
  double unix_s = 0;           // when the sample started; 0: no sample yet
  std::vector<unsigned> gpus;  // the GPUs selected for it
  FlatEntries entries;
  std::string json;            // to_json() of the above
};

enum class Selection { All, Job, List };

struct MonitorOptions {
  std::chrono::duration<double> interval{1.0};
  Selection selection = Selection::Job;
  std::string gpu_list;                      // Selection::List: "0,2", UUIDs, PCI bus ids
  std::string nvml_library;                  // empty: the system's libnvidia-ml.so.1
  std::optional<std::string> cuda_visible_devices;  // Selection::Job's fallback
  std::uint32_t root_pid = 0;                // Selection::Job: the process tree's root
};

inline constexpr double kMinIntervalS = 0.05;
inline constexpr double kMaxIntervalS = 3600;

// Checks the arguments of gw_monitor_open. The library path null or empty: ENV_NVML_LIBRARY
// (from $GPUWATCH_NVML_LIBRARY; null when unset).
core::Result<MonitorOptions> monitor_options(double interval_s, const char* gpus, const char* nvml_library,
                                             const char* env_nvml_library, const char* env_cuda_visible_devices,
                                             std::uint32_t root_pid);

class Monitor {
 public:
  explicit Monitor(MonitorOptions options);
  ~Monitor();  // stop()
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  enum class StartError { None, AlreadyStarted, NvmlUnavailable, BadSelection, Timeout };
  // Starts the thread and waits (at most TIMEOUT) until it has loaded NVML and finished the
  // first sample. On an error, MESSAGE says what went wrong.
  StartError start(std::chrono::duration<double> timeout, std::string& message);

  std::uint64_t sample_count() const { return count_.load(std::memory_order_acquire); }
  // Waits until sample_count() > AFTER; false on timeout or when the thread has ended.
  bool wait(std::uint64_t after, std::chrono::duration<double> timeout);
  std::shared_ptr<const FlatSample> latest() const;
  void stop();  // idempotent

 private:
  void run();
  // Waits until WHEN or stop(); false when stopping.
  bool sleep_until(std::chrono::steady_clock::time_point when);

  MonitorOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::shared_ptr<const FlatSample> latest_;
  std::atomic<std::uint64_t> count_{0};
  bool started_ = false, stopping_ = false, finished_ = false;
  std::optional<std::pair<StartError, std::string>> start_error_;
  std::thread thread_;
};

}  // namespace gpuwatch::capi
