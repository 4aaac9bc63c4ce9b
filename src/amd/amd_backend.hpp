#pragma once
// AMD's device backend over the amdgpu kernel driver's files (sysfs, hwmon, DRM fdinfo).
// Needs no vendor runtime. Files are read under OpenOptions::host_root (src/amd/README.md lists
// them): the read groups in amd_field_readers, the processes in drm_clients, discovery in
// amd_card. Codes are core::kAmdCodeBase + errno (amd_errors).
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "amd/amd_card.hpp"
#include "amd/drm_clients.hpp"
#include "backend/backends.hpp"
#include "backend/device_backend.hpp"
#include "core/result.hpp"

namespace gpuwatch::amd {

class AmdBackend final : public backend::DeviceBackend {
 public:
  // CARDS found under ROOT (discover_amd_cards); TREE: the simulator's, or null.
  AmdBackend(std::string root, std::vector<AmdCard> cards, std::shared_ptr<backend::SimulatedTree> tree = nullptr);

  const std::vector<AmdCard>& cards() const { return cards_; }

  core::Vendor vendor() const override { return core::Vendor::Amd; }
  std::string describe() const override;
  core::ReadError device_count(unsigned* count) const override;
  core::ReadError handle_by_index(unsigned index, backend::DeviceHandle* handle) const override;
  core::ReadError read_source(backend::DeviceHandle dev, core::Source source, std::span<const core::FieldId> fields,
                              core::DeviceSnapshot& device) const override;
  core::ReadError read_processes(backend::DeviceHandle dev, unsigned long long* utilization_since_us,
                                 core::DeviceSnapshot& device) const override;
  // The amdgpu module's version (ROOT/sys/module/amdgpu/version), else the kernel's release
  // (ROOT/proc/sys/kernel/osrelease: amdgpu built into the kernel).
  core::ReadError driver_version(std::string& out) const override;
  core::ReadError cuda_driver_version(int* version) const override;  // NotSupported
  std::string error_text(core::ReadError error) const override;
  core::ReadError error_of(core::ErrorReason reason) const override;
  core::ReadError last_error() const override;
  std::unique_ptr<backend::ProfilingReader> profiling_reader(unsigned index) const override;
  std::unique_ptr<backend::EventSource> open_events(unsigned gpu_count) const override;
  bool set_sim_clock(long long unix_ms) const override;
  bool has_sim_clock() const override;
  std::optional<double> sim_time_scale() const override;

 private:
  core::ReadError checked(core::ReadError error) const;  // remembers a failure (last_error)
  const AmdCard* card_of(backend::DeviceHandle dev) const;
  long long now_ms() const;  // the simulated clock when set, else the real one
  void refresh() const;

  std::string root_;
  std::vector<AmdCard> cards_;
  std::shared_ptr<backend::SimulatedTree> tree_;
  mutable DrmClientScanner scanner_;
  mutable std::vector<std::unique_ptr<CardProcessReader>> process_readers_;  // by card
  mutable std::atomic<int> last_failure_{0};
  mutable std::atomic<long long> sim_clock_ms_{0};
};

// The vendor table's row: opens the backend over the GPUs found under options.host_root; an
// error when there is none (the other vendors keep working).
core::Result<std::unique_ptr<backend::DeviceBackend>> open_backend(const backend::OpenOptions& options);
inline constexpr backend::Opener kOpener{"amdgpu", &open_backend};

}  // namespace gpuwatch::amd
