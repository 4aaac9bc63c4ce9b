#pragma once
// Intel's device backend over the i915 and xe kernel drivers' files (sysfs, hwmon, DRM fdinfo), with Level Zero Sysman where its loader is installed.
// Needs no vendor runtime. Files are read under OpenOptions::host_root. What is read from where:
// src/intel/README.md.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "backend/backends.hpp"
#include "backend/device_backend.hpp"
#include "core/result.hpp"
#include "intel/card_state.hpp"
#include "intel/intel_card.hpp"
#include "intel/level_zero_library.hpp"
#include "intel/sysman_reader.hpp"

namespace gpuwatch::intel {

// Level Zero as the backend uses it: the functions and the devices they found, or nothing
// (NOTE says why: no loader, no driver, "none").
struct LevelZeroUse {
  std::unique_ptr<LevelZeroLibrary> library;  // null with fakes, or when not loaded
  SysmanFunctions functions;
  std::optional<SysmanSession> session;
  std::string note;  // "Level Zero <path> (driver version N)" or why it is not used
};

class IntelBackend final : public backend::DeviceBackend {
 public:
  IntelBackend(std::string root, std::vector<IntelCard> cards, LevelZeroUse level_zero,
               std::shared_ptr<backend::SimulatedTree> simulated_tree);

  core::Vendor vendor() const override { return core::Vendor::Intel; }
  std::string describe() const override;
  core::ReadError device_count(unsigned* count) const override;
  core::ReadError handle_by_index(unsigned index, backend::DeviceHandle* handle) const override;
  core::ReadError read_source(backend::DeviceHandle dev, core::Source source, std::span<const core::FieldId> fields,
                              core::DeviceSnapshot& device) const override;
  core::ReadError read_processes(backend::DeviceHandle dev, unsigned long long* utilization_since_us,
                                 core::DeviceSnapshot& device) const override;
  // The i915/xe module's version, else the kernel's release.
  core::ReadError driver_version(std::string& out) const override;
  core::ReadError cuda_driver_version(int* version) const override;  // NotSupported
  std::string error_text(core::ReadError error) const override;
  core::ReadError error_of(core::ErrorReason reason) const override;
  core::ReadError last_error() const override;
  std::unique_ptr<backend::ProfilingReader> profiling_reader(unsigned index) const override;  // reads nothing
  std::unique_ptr<backend::EventSource> open_events(unsigned gpu_count) const override;       // never an event
  bool set_sim_clock(long long unix_ms) const override;
  bool has_sim_clock() const override;
  std::optional<double> sim_time_scale() const override;

  std::size_t card_count() const { return devices_.size(); }
  const IntelCard& card(unsigned index) const { return devices_[index]->card; }
  bool uses_level_zero() const { return level_zero_.session.has_value(); }

  // One card with what it keeps between samples (a handle's raw pointer).
  struct Device {
    IntelCard card;
    const SysmanDevice* sysman = nullptr;  // the matched Level Zero device, or null
    mutable CardState state;
  };

 private:
  core::ReadError noted(core::ReadError error) const;  // remembers a failure (last_error)
  // The rates' first readings (energy, engine counters, DRM clients), taken at open so that the
  // first sample already has a rate: its reads wait until kBaselineWait after them (once, a
  // one-shot command pays at most that). Not on a simulated clock (it does not run by itself).
  void take_baselines();
  void await_baselines() const;
  double clock_seconds() const;   // the simulated clock when one is set, else the real one
  // The DRM clients of every card (one /proc walk shared by the reads of about the same moment).
  std::shared_ptr<const DrmScan> drm_scan(std::uint64_t* generation) const;
  // Folds the newest scan into DEV's client usage (rates against the scan before); the scan.
  // Call with dev.state.mutex held.
  std::shared_ptr<const DrmScan> fold_drm_usage(const Device& dev) const;

  std::string root_;
  std::vector<std::unique_ptr<Device>> devices_;
  LevelZeroUse level_zero_;
  std::shared_ptr<backend::SimulatedTree> simulated_tree_;
  mutable std::atomic<long long> sim_clock_ms_{0};
  mutable std::atomic<int> last_failure_{0};
  mutable std::mutex scan_mutex_;
  mutable std::shared_ptr<const DrmScan> scan_;
  mutable std::uint64_t scan_generation_ = 0;
  mutable std::chrono::steady_clock::time_point scanned_at_{};
  mutable long long scanned_sim_ms_ = 0;
  std::chrono::steady_clock::time_point baselines_ready_{};
};

// Opens over the cards under options.host_root, with Level Zero from
// options.level_zero_library (or SYSMAN: a function table standing in for the loader, tests).
// Error: no i915 or xe GPU there.
core::Result<std::unique_ptr<IntelBackend>> open_intel_backend(const backend::OpenOptions& options,
                                                                const SysmanFunctions* sysman = nullptr);

// The vendor table's row: opens the backend over the GPUs found under options.host_root; an
// error when there is none (the other vendors keep working).
core::Result<std::unique_ptr<backend::DeviceBackend>> open_backend(const backend::OpenOptions& options);
inline constexpr backend::Opener kOpener{"intel", &open_backend};

}  // namespace gpuwatch::intel
