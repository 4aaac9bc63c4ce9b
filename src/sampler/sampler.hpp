#pragma once
// Sampler: a device backend (backend::DeviceBackend: the backends) -> core::Snapshot. Per-field isolation (one failing field never
// spoils a row), per-device isolation (a lost GPU never spoils the others), and a
// per-(device, field) cache of NotSupported/FunctionMissing so those are not
// retried every tick; transient failures are retried.
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "core/field.hpp"
#include "core/field_table.hpp"
#include "core/snapshot.hpp"
#include "backend/device_backend.hpp"

namespace gpuwatch::sampler {

struct SampleOptions {
  std::vector<core::FieldId> fields;   // empty: every claimed field
  std::vector<unsigned> devices;       // global device indices; empty: all
  bool processes = false;              // read compute + graphics processes
  bool process_utilization = false;    // also per-process sm/mem/enc/dec (needs processes)
  // Read the slow sources (is_slow_source) only every Nth sample of a device (0 or 1: every
  // sample); in between their fields keep their last readings (sample_into refills the same
  // Snapshot), and Sampler::slow_fields_read_at says when they were read (not a timestamp in
  // DeviceSnapshot: core/snapshot.hpp is included by nearly every file, and a change there
  // rebuilds all four CI builds cold: the lead keeps it unchanged). A reading that
  // is not settled (never read, or failed) is asked again at the next sample, as is every slow
  // field after the GPU was lost or inaccessible.
  unsigned slow_every = 0;
};

// Read groups whose values are fixed while the driver is loaded, or change rarely (identity, PCI
// address and link maxima, clock maxima, limits and thresholds, ECC mode and counters, retired
// pages and remapped rows): read less often with SampleOptions::slow_every.
bool is_slow_source(core::Source source);

// A lost GPU (ErrorReason::GpuLost) is not called again until its back-off ends
// (1 s, doubling up to 60 s); meanwhile it is reported Lost without touching the driver.
inline constexpr std::chrono::seconds kLostBackoffFirst{1};
inline constexpr std::chrono::seconds kLostBackoffMax{60};

class Sampler {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  explicit Sampler(const backend::DeviceBackend& backend, Clock now = &std::chrono::steady_clock::now)
      : backend_(backend), now_(std::move(now)) {}

  // Never throws for driver errors: they end up in the snapshot's statuses.
  core::Snapshot sample(const SampleOptions& options);
  // The same, refilling `snapshot` in place (reuses its memory: for tight loops). Pass the
  // same Snapshot every time: fields outside options.fields are cleared only when the
  // field list changes.
  void sample_into(const SampleOptions& options, core::Snapshot& snapshot);

  // How many (device, field) pairs are cached as unsupported (for tests, metrics).
  std::size_t cached_unsupported_count() const;

  // The device handle the latest sample of device INDEX used; empty when that sample got
  // none (lost, inaccessible, backing off) or the device was never sampled. For readers
  // that complete a sample (sampler::ProfilingSampler) without asking the driver for it again.
  backend::DeviceHandle handle_of(unsigned index) const;

  // When device INDEX's slow fields (SampleOptions::slow_every) were last read: the timestamp of
  // that sample, older than the latest one between their reads. Nullopt: not read yet.
  std::optional<std::chrono::system_clock::time_point> slow_fields_read_at(unsigned index) const;

 private:
  // The wanted fields grouped by read group (computed once per sample, not per device).
  struct SourceGroup {
    core::Source source;
    std::vector<core::FieldId> fields;
  };
  void plan(const std::vector<core::FieldId>& fields);
  void sample_device(unsigned index, const SampleOptions& options, core::DeviceSnapshot& device);
  void note_error(core::ReadError error);  // remembers the backend's text of ERROR for the snapshots

  const backend::DeviceBackend& backend_;
  std::vector<core::FieldId> planned_fields_;
  std::vector<SourceGroup> groups_;
  std::vector<core::FieldId> system_fields_;
  // What the sampler remembers per device index between samples.
  struct DeviceMemory {
    std::vector<std::optional<core::FieldReading>> unsupported;  // by FieldId: cached NotSupported/FunctionMissing
    bool any_unsupported = false;
    unsigned long long utilization_since_us = 0;  // newest per-process utilization sample seen
    std::chrono::steady_clock::duration backoff{};  // zero: not lost
    std::chrono::steady_clock::time_point retry_at{};
    backend::DeviceHandle handle;  // from the latest sample (handle_of)
    unsigned slow_wait = 0;  // samples until the slow sources are read again (SampleOptions::slow_every)
    std::optional<std::chrono::system_clock::time_point> slow_read_at;  // slow_fields_read_at
  };
  DeviceMemory& memory(unsigned index);
  void mark_lost(DeviceMemory& mem, core::DeviceSnapshot& device, core::ReadError error);
  Clock now_;
  std::vector<DeviceMemory> devices_;
  std::map<int, std::string> error_strings_;  // every vendor code seen so far
  std::optional<int> cuda_driver_version_;     // the backend's cuda_driver_version, once it answered
  std::chrono::system_clock::time_point sampled_at_{};  // the current sample's timestamp
};

// One-shot convenience: a fresh Sampler (no cache carried over).
core::Snapshot sample(const backend::DeviceBackend& backend, const SampleOptions& options);

// All fields with claimed == true, in table order.
const std::vector<core::FieldId>& claimed_fields();

}  // namespace gpuwatch::sampler
