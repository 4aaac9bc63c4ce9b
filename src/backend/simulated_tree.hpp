#pragma once
// The simulator's side of the backends that read files rather than a vendor library (AMD's and
// Intel's sysfs, hwmon and DRM fdinfo): on the simulator those files are written under the
// simulated host root (GPUWATCH_HOST_ROOT) from the scenario, and a backend reading them asks
// the tree to bring them up to the moment it reads. On a real machine there is none.
#include <optional>

namespace gpuwatch::backend {

class SimulatedTree {
 public:
  virtual ~SimulatedTree() = default;
  // Brings the files to now: the real clock, or the clock set by set_clock. Cheap when called
  // again within its refresh period (every read group of every device calls it). Thread-safe.
  virtual void refresh() = 0;
  // From now on the files show UNIX_MS (sim record's timeline, frozen clocks); 0: follow the
  // real clock again. Rewrites the files at once.
  virtual void set_clock(long long unix_ms) = 0;
  // The scenario's time scale (scenario seconds per real second).
  virtual std::optional<double> time_scale() const = 0;
};

}  // namespace gpuwatch::backend
