// The Collector's host thread (issue 25): one HostSampler, sampled once per interval on a thread of
// its own, so that a slow /proc or /sys read never delays a GPU's sample. Its roots are the PIDs of
// the GPUs' processes in the latest snapshot (their trees: DataLoader workers), read every
// HostSignalsOptions::process_trees_every or when they change; each sample goes into the published
// snapshot (core::Snapshot::host), the history's host ring and the hook.
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "host_signals/host_sampler.hpp"
#include "live/collector_shared.hpp"

namespace gpuwatch::live {
namespace {

host_signals::HostSampler make_host_sampler(const HostSignalsOptions& options) {
  if (options.files) return host_signals::HostSampler(options.files);
  return host_signals::HostSampler::under_root(options.root, options.simulated_tree);
}

std::set<unsigned> gpu_process_pids(const core::Snapshot& latest) {
  std::set<unsigned> pids;
  for (const auto& device : latest.devices) {
    if (device.state != core::DeviceState::Ok || device.processes_status != core::FieldStatus::Ok) continue;
    for (const auto& p : device.processes) pids.insert(p.pid);
  }
  return pids;
}

}  // namespace

void run_host(std::shared_ptr<Collector::Shared> shared, CollectorOptions options) {
  // Made here, not in start(): its first listing of /sys/class/infiniband (and a simulated tree's
  // first rendering) is this thread's work too.
  host_signals::HostSampler sampler = make_host_sampler(options.host);
  std::set<unsigned> tree_roots;                        // the roots of the latest tree reading
  std::optional<Steady::time_point> trees_read_at;
  std::vector<host_signals::ProcessTreeRates> trees;    // carried between tree readings
  Collector::Shared& s = *shared;
  std::unique_lock lock(s.mutex);
  Steady::time_point next = Steady::now();
  for (;;) {
    if (s.wake.wait_until(lock, next, [&] { return s.stopping; })) break;
    std::set<unsigned> roots = gpu_process_pids(s.latest);
    lock.unlock();
    const auto now = Steady::now();
    const bool trees_due = roots != tree_roots || !trees_read_at || now - *trees_read_at >= options.host.process_trees_every;
    host_signals::HostSample read;
    if (trees_due) {
      read = sampler.sample(now, roots);
      trees = read.process_trees;
      tree_roots = std::move(roots);
      trees_read_at = now;
    } else {
      read = sampler.sample(now);
      read.process_trees = trees;
    }
    auto sample = std::make_shared<const host_signals::HostSample>(std::move(read));
    if (options.history) options.history->push_host(make_host_row(*sample));
    if (options.on_host_sample) options.on_host_sample(sample);
    lock.lock();
    if (s.stopping) break;
    s.latest.host = std::move(sample);
    next += options.interval;  // the next tick on the grid; ticks missed by a slow read are skipped
    for (const auto late = Steady::now(); next <= late;) next += options.interval;
  }
  --s.running;
  s.exited.notify_all();
}

}  // namespace gpuwatch::live
