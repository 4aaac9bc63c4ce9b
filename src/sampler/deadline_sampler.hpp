#pragma once
// DeadlineSampler: a Sampler that answers within a deadline even when one GPU's driver call
// hangs (issue 16). Each GPU is sampled on its own long-lived thread, with its own Sampler
// (its caches and back-off kept between samples); what has not answered by the deadline is
// reported DeviceState::TimedOut (its fields absent, Failed with ErrorReason::Timeout: CSV
// "[Timeout]", JSON null, never zero) while its thread stays inside the call: the next
// samples report that GPU timed out without asking it again until the call comes back.
// The threads persist across samples (issue 26: a thread per GPU per sample made `dmon` 13x
// hungrier); the destructor joins the idle ones and leaves one stuck in the driver behind, detached.
// Threads left inside the driver are counted (backend/abandoned_calls.hpp), so the command exits
// with std::_Exit instead of unloading the vendor library under them.
#include <chrono>
#include <memory>

#include "core/snapshot.hpp"
#include "backend/device_backend.hpp"
#include "sampler/sampler.hpp"

namespace gpuwatch::sampler {

// The one-shot commands' default deadline (status, query, dmon, pmon: --timeout).
inline constexpr std::chrono::milliseconds kDefaultDeadline{2000};

class DeadlineSampler {
 public:
  // BACKEND must outlive every thread (a backend keeps its library loaded while one is abandoned).
  DeadlineSampler(const backend::DeviceBackend& backend, std::chrono::milliseconds timeout);
  ~DeadlineSampler();
  DeadlineSampler(const DeadlineSampler&) = delete;
  DeadlineSampler& operator=(const DeadlineSampler&) = delete;

  // As Sampler::sample / sample_into; returns within the timeout (plus the device count call).
  core::Snapshot sample(const SampleOptions& options);
  void sample_into(const SampleOptions& options, core::Snapshot& snapshot);

  std::chrono::milliseconds timeout() const { return timeout_; }

  struct Shared;  // the per-GPU workers' state (deadline_sampler.cpp)

 private:
  const backend::DeviceBackend& backend_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<Shared> shared_;
};

// A device that did not answer in time: state TimedOut, every field of FIELDS absent
// (Failed, TIMEOUT: the backend's error_of(ErrorReason::Timeout)), no processes. Pure (for the
// renderers' tests).
core::DeviceSnapshot timed_out_device(unsigned index, const std::vector<core::FieldId>& fields,
                                      core::ReadError timeout);

// The timeout's text, as NVML spells it (nvidia-smi's): CSV shows "[Timeout]".
inline constexpr const char* kTimeoutText = "Timeout";

}  // namespace gpuwatch::sampler
