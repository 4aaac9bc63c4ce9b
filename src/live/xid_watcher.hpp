#pragma once
// Xid events: the driver's numbered error reports (13 graphics exception, 31 MMU fault,
// 48 double-bit ECC, 79 fallen off the bus...). The driver delivers them only as events,
// never as a field, so one background thread opens the backend's event source (NVIDIA's:
// an NVML event set, nvml/xid_event_set.hpp) and waits on it with a bounded timeout. It counts
// events per (GPU, Xid) and keeps the wall-clock time each was last received; readers take a
// copy under a mutex and never call the driver. A wait that hangs blocks only this thread: sampling and
// scrapes go on, and stop() gives up on it after its timeout.
//
// GPUs that do not support Xid events (or a driver without the event API) register
// nothing and get no series, never zeros. Counts start at the exporter's start: Xids
// from before cannot be replayed (the driver keeps no history).
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "live/xid_count.hpp"
#include "backend/device_backend.hpp"

namespace gpuwatch::live {

struct XidWatcherOptions {
  std::chrono::milliseconds wait{500};        // one event wait at most this long
  std::chrono::milliseconds error_backoff{1000};  // after a failed wait (other than TIMEOUT)
};

class XidWatcher {
 public:
  XidWatcher(const backend::DeviceBackend& backend, XidWatcherOptions options = {});
  ~XidWatcher();  // stops; a thread stuck in the driver is detached (it holds its own state)
  XidWatcher(const XidWatcher&) = delete;
  XidWatcher& operator=(const XidWatcher&) = delete;

  // Starts the thread, which registers GPUs 0..gpu_count-1 and then waits for events.
  void start(unsigned gpu_count);
  // Asks the thread to stop; false when it is still inside NVML after TIMEOUT (the caller
  // must then not unload NVML).
  bool stop(std::chrono::milliseconds timeout);

  // Every (GPU, Xid) seen so far, sorted by GPU then Xid.
  std::vector<XidCount> counts() const;
  // GPUs registered for Xid events (known once registration finished).
  std::vector<unsigned> watched_gpus() const;

  struct Shared;  // state shared with the thread (xid_watcher.cpp)

 private:
  const backend::DeviceBackend& backend_;
  XidWatcherOptions options_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace gpuwatch::live
