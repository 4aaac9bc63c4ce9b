#pragma once
// Where a live session keeps its samples (recorder::LiveRecorder: the history database, on its
// own thread). Declared here so that live/ stays below the recorder: the session pushes into it
// and never knows SQLite.
#include <chrono>
#include <vector>

#include "core/snapshot.hpp"
#include "live/xid_count.hpp"

namespace gpuwatch::live {

class SampleRecorder {
 public:
  virtual ~SampleRecorder() = default;
  virtual void start() = 0;
  // From a sampling thread: cheap (queue it).
  virtual void push(const core::DeviceSnapshot& device, std::chrono::system_clock::time_point started) = 0;
  // The Xid watcher's running counts; the recorder writes the new events.
  virtual void push_xid_counts(std::vector<XidCount> counts) = 0;
  // Writes what is queued and ends. Idempotent.
  virtual void stop() = 0;
};

}  // namespace gpuwatch::live
