#include "sim_session/timeline_recording.hpp"

#include <filesystem>
#include <memory>
#include <set>
#include <vector>


namespace gpuwatch::sim_session {

std::chrono::milliseconds tick_jitter(const TimelinePlan& plan, std::size_t k) {
  if (k == 0 || plan.interval.count() <= 1) return std::chrono::milliseconds(0);
  // splitmix64 of (seed, k): uniform, stateless, the same on every machine.
  std::uint64_t x = plan.jitter_seed ^ (0x9E3779B97F4A7C15ull * (static_cast<std::uint64_t>(k) + 1));
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return std::chrono::milliseconds(static_cast<std::int64_t>(x % static_cast<std::uint64_t>(plan.interval.count())));
}

std::optional<TimelineHost> simulated_timeline_host(std::shared_ptr<backend::SimulatedTree> tree,
                                                    const std::string& host_root) {
  if (!tree || host_root.empty()) return std::nullopt;
  tree->refresh();  // the host files exist before the root is checked
  std::error_code ignored;
  if (!std::filesystem::exists(std::filesystem::path(host_root) / "proc" / "stat", ignored)) return std::nullopt;
  // No tree in the sampler: the recording sets the clock itself, once per tick.
  return TimelineHost{std::move(tree), host_signals::HostSampler::under_root(host_root)};
}

std::size_t timeline_sample_count(const TimelinePlan& plan) {
  if (plan.end <= plan.start || plan.interval.count() <= 0) return 1;
  return static_cast<std::size_t>((plan.end - plan.start) / plan.interval) + 1;
}

core::Result<std::size_t> record_timeline(const backend::DeviceBackend& backend, const TimelinePlan& plan,
                                          const std::function<void(const core::Snapshot&)>& sink,
                                          const std::function<void(std::size_t, std::size_t)>& progress,
                                          TimelineHost* host) {
  if (!backend.has_sim_clock()) {
    return core::make_error(backend.describe() + " is not gpuwatch's simulated driver (no virtual clock)");
  }
  const auto set_clock = [&backend](long long unix_ms) { static_cast<void>(backend.set_sim_clock(unix_ms)); };
  using namespace std::chrono;
  // The sampler's own clock (lost-GPU back-off) follows the virtual time too.
  steady_clock::time_point virtual_steady{};
  sampler::Sampler sampler(backend, [&virtual_steady] { return virtual_steady; });
  const std::size_t total = timeline_sample_count(plan);
  core::Snapshot snapshot;
  std::vector<std::unique_ptr<backend::ProfilingReader>> buffers;  // one per GPU: each keeps its newest sample seen
  for (std::size_t i = 0; i < total; ++i) {
    const auto at = plan.start + plan.interval * static_cast<long>(i) - tick_jitter(plan, i);
    set_clock(duration_cast<milliseconds>(at.time_since_epoch()).count());
    virtual_steady = steady_clock::time_point(duration_cast<steady_clock::duration>(at - plan.start));
    sampler.sample_into(plan.options, snapshot);
    for (auto& device : snapshot.devices) {
      while (buffers.size() <= device.index) buffers.push_back(backend.profiling_reader(static_cast<unsigned>(buffers.size())));
      buffers[device.index]->read_sample_buffer(sampler.handle_of(device.index), device,
                                                time_point_cast<system_clock::duration>(at));
    }
    snapshot.timestamp = time_point_cast<system_clock::duration>(at);
    if (host != nullptr) {
      // The host files of this tick (a no-op when a backend already moved the tree there), read at
      // the virtual time: the rates between two ticks are the scenario's over that interval.
      host->tree->set_clock(duration_cast<milliseconds>(at.time_since_epoch()).count());
      std::set<unsigned> roots;
      for (const auto& device : snapshot.devices) {
        for (const auto& process : device.processes) roots.insert(process.pid);
      }
      auto sample = std::make_shared<host_signals::HostSample>(host->sampler.sample(virtual_steady, roots));
      sample->timestamp = snapshot.timestamp;
      snapshot.host = std::move(sample);
    }
    sink(snapshot);
    if (progress && (i % 600 == 0 || i + 1 == total)) progress(i + 1, total);
  }
  set_clock(0);
  if (host != nullptr) host->tree->set_clock(0);
  return total;
}

}  // namespace gpuwatch::sim_session
