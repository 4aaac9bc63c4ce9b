#pragma once
// What one Intel GPU remembers between samples (the values that are rates of counters): its
// energy counter for power.draw, Level Zero's engine counters for utilization.gpu, and its DRM
// clients' busy counters for utilization without Level Zero and per process. Internal to src/intel.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "intel/drm_clients.hpp"
#include "intel/sysman_reader.hpp"

namespace gpuwatch::intel {

// A counter and when it was read (seconds on the backend's clock: the real one, or the simulated
// clock set by set_sim_clock), turned into a rate against the next reading.
struct CounterRate {
  std::optional<std::uint64_t> last;
  double last_at = 0;
  std::optional<double> rate;  // the latest rate (kept while readings come too close together)

  // Feeds VALUE read AT: the rate per second since the previous reading, when at least
  // MIN_INTERVAL_S passed (else the previous rate); nullopt on the first reading or after the
  // counter went back (a reset).
  std::optional<double> update(std::uint64_t value, double at, double min_interval_s);
};

// The DRM clients' counters of one card at one scan, and what they gave against the scan before.
struct ClientUsage {
  std::uint64_t generation = 0;  // of the scan last folded in (0: none)
  double at = 0;
  std::map<std::tuple<std::uint32_t, std::uint64_t>, DrmClient> clients;  // (pid, client id)
  std::optional<double> device_ratio;             // the busiest engine class, all clients summed
  std::map<std::uint32_t, double> process_ratio;  // per pid, the busiest class of its clients
};

struct CardState {
  std::mutex mutex;
  CounterRate energy_uj;                   // hwmon energy1_input: µJ per second = µW
  std::optional<zes_power_energy_counter_t> sysman_energy;
  std::optional<double> sysman_power_w;
  std::optional<EngineCounters> engines;   // Level Zero's previous reading
  std::optional<double> engine_ratio;
  double engines_at = 0;
  ClientUsage usage;
};

}  // namespace gpuwatch::intel
