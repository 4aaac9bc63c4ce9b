#pragma once
// NVML's device error events: one event set registered for Xid events on every GPU that
// supports them (nvmlDeviceRegisterEvents with nvmlEventTypeXidCriticalError), waited on with a
// bounded timeout (nvmlEventSetWait_v2, or the legacy nvmlEventSetWait). NVIDIA's
// backend::EventSource (NvmlBackend::open_events): serve's Xid watcher waits on it on its own
// thread (live/xid_watcher.hpp); `record` and `sim record` drain it once per sample. On the
// simulated driver the events follow its virtual clock, so a `sim record` gets the scenario's
// Xids at their scenario times.
#include <utility>
#include <vector>

#include "backend/device_backend.hpp"
#include "nvml/nvml_api.hpp"

namespace gpuwatch::nvml {

// One wait on SET through whichever symbol the library has (v2 or v1); fills DEVICE, TYPE, DATA.
nvmlReturn_t wait_xid_event(const NvmlFunctions& f, nvmlEventSet_t set, unsigned timeout_ms, nvmlDevice_t& device,
                            unsigned long long& type, unsigned long long& data);
// Registers GPUs 0..GPU_COUNT-1 that support Xid events on SET; returns handle -> index of those.
std::vector<std::pair<nvmlDevice_t, unsigned>> register_xid_gpus(const NvmlApi& api, nvmlEventSet_t set,
                                                                 unsigned gpu_count);

class XidEventSet final : public backend::EventSource {
 public:
  // Creates the set and registers GPUs 0..GPU_COUNT-1 that support Xid events. A driver
  // without the event API, or with no GPU supporting it, gives a set that never has events.
  XidEventSet(const NvmlApi& api, unsigned gpu_count);
  ~XidEventSet() override;
  XidEventSet(const XidEventSet&) = delete;
  XidEventSet& operator=(const XidEventSet&) = delete;

  std::vector<unsigned> watched_gpus() const override;
  // An Xid of a registered GPU: Event (gpu, the Xid); another event type or a handle not
  // registered (a MIG device): Skipped; NVML_ERROR_TIMEOUT: TimedOut; else Failed.
  Wait wait(unsigned timeout_ms, backend::DeviceEvent& event) override;

 private:
  const NvmlApi& api_;
  nvmlEventSet_t set_ = nullptr;
  std::vector<std::pair<nvmlDevice_t, unsigned>> handles_;
};

}  // namespace gpuwatch::nvml
