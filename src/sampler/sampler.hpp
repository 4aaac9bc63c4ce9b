#pragma once
// Sampler: NvmlApi -> core::Snapshot. Per-field isolation (one failing field never
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
#include "nvml/nvml_api.hpp"

namespace gpuwatch::sampler {

struct SampleOptions {
  std::vector<core::FieldId> fields;   // empty: every claimed field
  std::vector<unsigned> devices;       // NVML indices; empty: all
  bool processes = false;              // read compute + graphics processes
  bool process_utilization = false;    // also per-process sm/mem/enc/dec (needs processes)
};

// A lost GPU (NVML_ERROR_GPU_IS_LOST) is not called again until its back-off ends
// (1 s, doubling up to 60 s); meanwhile it is reported Lost without touching NVML.
inline constexpr std::chrono::seconds kLostBackoffFirst{1};
inline constexpr std::chrono::seconds kLostBackoffMax{60};

class Sampler {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  explicit Sampler(const nvml::NvmlApi& api, Clock now = &std::chrono::steady_clock::now)
      : api_(api), now_(std::move(now)) {}

  // Never throws for NVML errors: they end up in the snapshot's statuses.
  core::Snapshot sample(const SampleOptions& options);
  // The same, refilling `snapshot` in place (reuses its memory: for tight loops). Pass the
  // same Snapshot every time: fields outside options.fields are cleared only when the
  // field list changes.
  void sample_into(const SampleOptions& options, core::Snapshot& snapshot);

  // How many (device, field) pairs are cached as unsupported (for tests, metrics).
  std::size_t cached_unsupported_count() const;

  // The NVML handle the latest sample of device INDEX used; nullptr when that sample got
  // none (lost, inaccessible, backing off) or the device was never sampled. For readers
  // that complete a sample (sampler::ProfilingSampler) without asking NVML for it again.
  nvmlDevice_t handle_of(unsigned index) const;

 private:
  // The wanted fields grouped by NVML source (computed once per sample, not per device).
  struct SourceGroup {
    core::Source source;
    std::vector<core::FieldId> fields;
  };
  void plan(const std::vector<core::FieldId>& fields);
  void sample_device(unsigned index, const SampleOptions& options, core::DeviceSnapshot& device);
  void note_error(int code);  // remembers nvmlErrorString(code) for the snapshots

  const nvml::NvmlApi& api_;
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
    nvmlDevice_t handle = nullptr;  // from the latest sample (handle_of)
  };
  DeviceMemory& memory(unsigned index);
  void mark_lost(DeviceMemory& mem, core::DeviceSnapshot& device, nvmlReturn_t rc);
  Clock now_;
  std::vector<DeviceMemory> devices_;
  std::map<int, std::string> error_strings_;  // every code seen so far
  std::optional<int> cuda_driver_version_;     // nvmlSystemGetCudaDriverVersion[_v2], once it answered
};

// One-shot convenience: a fresh Sampler (no cache carried over).
core::Snapshot sample(const nvml::NvmlApi& api, const SampleOptions& options);

// All fields with claimed == true, in table order.
const std::vector<core::FieldId>& claimed_fields();

}  // namespace gpuwatch::sampler
