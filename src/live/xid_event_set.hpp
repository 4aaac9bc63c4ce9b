#pragma once
// One NVML event set registered for Xid events on every GPU that supports them, read without
// a thread: drain() takes whatever events are waiting now (a zero-timeout wait per event).
// What `record` and `sim record` poll once per sample (serve watches on its own thread,
// xid_watcher.hpp); on the simulated driver the events follow its virtual clock, so a
// `sim record` gets the scenario's Xids at their scenario times.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "nvml/nvml_api.hpp"

namespace gpuwatch::live {

struct XidEvent {
  unsigned gpu = 0;       // NVML index
  std::uint64_t xid = 0;  // the event's eventData
};

// The two NVML steps that serve's watcher thread (xid_watcher.hpp) and XidEventSet share.
// One wait on SET through whichever symbol the library has (v2 or v1); fills DEVICE, TYPE, DATA.
nvmlReturn_t wait_xid_event(const nvml::NvmlFunctions& f, nvmlEventSet_t set, unsigned timeout_ms,
                            nvmlDevice_t& device, unsigned long long& type, unsigned long long& data);
// Registers GPUs 0..GPU_COUNT-1 that support Xid events on SET; returns handle -> index of those.
std::vector<std::pair<nvmlDevice_t, unsigned>> register_xid_gpus(const nvml::NvmlApi& api, nvmlEventSet_t set,
                                                                 unsigned gpu_count);

class XidEventSet {
 public:
  // Creates the set and registers GPUs 0..GPU_COUNT-1 that support Xid events. A driver
  // without the event API, or with no GPU supporting it, gives a set that never has events.
  XidEventSet(const nvml::NvmlApi& api, unsigned gpu_count);
  ~XidEventSet();
  XidEventSet(const XidEventSet&) = delete;
  XidEventSet& operator=(const XidEventSet&) = delete;

  // GPUs registered for Xid events.
  std::vector<unsigned> watched_gpus() const;
  // The Xid events waiting now, oldest first, at most MAX (no waiting: timeout 0). A failing
  // wait ends the drain (what was read so far is returned).
  std::vector<XidEvent> drain(std::size_t max = 256);

 private:
  const nvml::NvmlApi& api_;
  nvmlEventSet_t set_ = nullptr;
  std::vector<std::pair<nvmlDevice_t, unsigned>> handles_;
};

}  // namespace gpuwatch::live
