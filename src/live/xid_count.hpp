#pragma once
// One (GPU, Xid) pair the Xid watcher (xid_watcher.hpp) has seen: what the encoders export.
#include <cstdint>

namespace gpuwatch::live {

struct XidCount {
  unsigned gpu = 0;                 // NVML index
  std::uint64_t xid = 0;            // the Xid number (the event's eventData)
  std::uint64_t count = 0;          // events received since the exporter started
  double last_seen_unix_s = 0;      // wall clock when the latest one was received
};

}  // namespace gpuwatch::live
