#pragma once
// The live pipeline's background sampling: one thread per GPU, each with its own Sampler,
// so a slow or hung NVML call on one GPU never delays the others, and never any
// scrape: scrapes read the latest results under a mutex and never call NVML.
//
// Watchdog: a GPU whose latest finished sample started more than `stale_after` ago
// (its thread is stuck in an NVML call) is reported not up, with its sample age, until
// the driver answers again. A lost GPU keeps its identity (uuid, name...) from its
// last good sample. The set of GPUs (one thread each) is fixed at start(): GPUs that
// appear later are not sampled until restart; gpuwatch_gpus follows NVML's count.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "attribution/attributor.hpp"
#include "live/alert_board.hpp"
#include "live/live_diagnosis.hpp"
#include "live/view.hpp"
#include "live/sample_history.hpp"
#include "live/xid_watcher.hpp"
#include "host/process_info.hpp"
#include "backend/device_backend.hpp"
#include "backend/simulated_tree.hpp"

namespace gpuwatch::host_signals {
class HostFiles;
struct HostSample;
}

namespace gpuwatch::live {

// What the host is doing (issue 25): sampled once per interval on a thread of its own (never a
// GPU's: a slow /proc read cannot delay a GPU sample), with the PIDs of the GPUs' processes of
// the latest snapshot as the roots of the process trees; every published snapshot carries the
// latest sample (core::Snapshot::host).
struct HostSignalsOptions {
  // Off unless a command asks (serve does, unless --no-host): no thread, snapshot.host stays null.
  bool enabled = false;
  // Where the files are read: backend::OpenOptions::host_root ("/" or GPUWATCH_HOST_ROOT; a root
  // without /proc/stat reads the real host, host_signals::host_signals_root) and, on the
  // simulator, the tree that renders the simulated host's files (OpenOptions::simulated_tree).
  std::string root = "/";
  std::shared_ptr<backend::SimulatedTree> simulated_tree;
  // Tests: a fake tree read instead of ROOT.
  std::shared_ptr<const host_signals::HostFiles> files;
  // The GPU processes' trees cost a few small reads per process (about 9 us each, with 50 GPU
  // processes as much as the rest of the sample five times over): read this often (and at once
  // when the set of GPU processes changes), their CPU averaged over that window; the samples
  // between carry the latest trees. 0: at every sample.
  std::chrono::milliseconds process_trees_every{5000};
};

struct CollectorOptions {
  std::chrono::milliseconds interval{1000};
  std::chrono::milliseconds stale_after{0};  // 0: 3 intervals + 2 s
  bool processes = false;                    // per-process utilization and users (per-process series)
  // pid -> user name (read from /proc by the caller); called from the sampling threads.
  std::function<std::optional<std::string>(std::uint32_t)> user_of;
  // pid -> what /proc says about it (user, command line, RSS, CPU time, run time; serve passes
  // host::read_process_info): for the dashboard's process table (LiveView::process_info).
  // Called from the sampling threads, per process at most every 2 s; each thread turns the CPU
  // times into CPU % with a tracker of its own. Set, per-process GPU utilization is sampled too.
  std::function<host::ProcessInfo(std::uint32_t)> process_info_of;
  // When set, every finished sample of every GPU is also pushed here (/api/v1/history, events).
  std::shared_ptr<SampleHistory> history;
  // Watch Xid events on their own thread (live/xid_watcher.hpp); LiveView::xid_events.
  bool xid_events = false;
  // When set, called with every finished sample of every GPU (lost GPUs too: state says so)
  // and when it started, from that GPU's sampling thread, outside the collector's lock. Keep
  // it cheap (serve's recorder only queues it): a slow hook delays that GPU's next sample.
  std::function<void(const core::DeviceSnapshot&, std::chrono::system_clock::time_point)> on_sample;
  // `record` (issue 16): a sample that ran late (a loaded machine) does not skip the next tick
  // unless it is a whole interval behind, and on_sample gets the time of the tick it stands for,
  // so that every GPU has one sample per tick and the GPUs of a tick group together.
  bool catch_up = false;
  // The host signals (issue 25): see HostSignalsOptions (one more thread when enabled).
  HostSignalsOptions host;
  // With host: called with every host sample, from the host thread, outside the collector's
  // lock (keep it cheap: queue it).
  std::function<void(const std::shared_ptr<const host_signals::HostSample>&)> on_host_sample;
  // Fields sampled besides the exported ones (serve reads the recorded history columns too).
  std::vector<core::FieldId> extra_fields;
  // The fields each sample reads (plus extra_fields), chosen by the caller: serve the exported
  // ones (exporter::collected_fields), `top` the few it shows, so each sample costs fewer calls.
  std::vector<core::FieldId> fields;
  // Run the diagnose engine on the latest samples every interval (live/live_diagnosis.hpp):
  // LiveView::findings, gpuwatch_finding, the JSON API's findings.
  bool diagnose = false;
  // With diagnose: called on the diagnosis thread after every tick (serve's local alert engine;
  // alert_runtime/tick_input.hpp turns its arguments into the engine's input). Never on a sampling thread.
  LiveDiagnosis::TickHook on_diagnosis_tick;
  // With diagnose: the engine to start from (history/live_priming.hpp: fed the recorded history,
  // so a restart shows the ongoing problems at once); taken by the constructor. Null: a new one.
  std::shared_ptr<diagnose::Diagnoser> primed_diagnosis;
  // With diagnose: who runs each new process, read on the diagnosis thread (never a sampling
  // thread) to group GPUs into jobs (live/live_identities.hpp). Empty: this machine's /proc,
  // with the attributor below when set.
  IdentityReader process_identities;
  // The local alert engine's results for /metrics (gpuwatch_alerts), /api/v1/alerts and the
  // event stream; null: no engine.
  std::shared_ptr<AlertBoard> alert_board;
  // Who uses each GPU (issue 15): called from each GPU's sampling thread; never waits on an API.
  // LiveView::gpu_owners and process_owners. Null: attribution off.
  std::shared_ptr<attribution::Attributor> attributor;
  // With an attributor: a GPU whose processes did not change is attributed again only this often
  // (0: every sample). Each attribution checks every process's /proc start time.
  std::chrono::milliseconds attribute_every{0};
  // Sample the GPUs one after the other on one thread (`top`: one wake-up a tick instead of one per
  // GPU) instead of a thread per GPU. A hung GPU still never stalls the others: a sample that runs
  // past pool_hang_budget(interval) keeps that thread for its GPU alone, and a new thread samples
  // the others (the rest of the held-up tick at once). A watchdog sleeps on a timer that fires only
  // then (the tick disarms it when it ends in time).
  bool one_thread = false;
  // Read the slow fields (sampler::is_slow_source: identity, limits, ECC counters...) only every
  // Nth sample of each GPU; they keep their last readings in between (0 or 1: every sample).
  unsigned slow_every = 0;
};

// one_thread: how long one GPU's sample may take before the others move to another thread:
// a quarter of the interval, at least 50 ms and at most 1 s.
std::chrono::milliseconds pool_hang_budget(std::chrono::milliseconds interval);

// The fields a lost GPU keeps from its last good sample (its identity).
std::vector<core::FieldId> identity_fields();

class Collector {
 public:
  Collector(const backend::DeviceBackend& api, CollectorOptions options);
  ~Collector();  // stops; threads still stuck in NVML are detached (see stop)
  Collector(const Collector&) = delete;
  Collector& operator=(const Collector&) = delete;

  // Reads the GPU count and starts one sampling thread per GPU.
  void start();
  // Asks the threads to stop and waits up to TIMEOUT for them. False when a thread is
  // still inside an NVML call: the caller must then not unload NVML (exit instead).
  bool stop(std::chrono::milliseconds timeout);

  // Calls FN with a consistent view of the latest samples, under the lock (keep FN short:
  // encode, do not do I/O).
  void with_view(const std::function<void(const LiveView&)>& fn) const;

  unsigned gpu_count() const;
  // Every GPU has finished at least one sample (or there are none).
  bool ready() const;
  std::chrono::milliseconds stale_after() const { return options_.stale_after; }

  struct Shared;  // state shared with the sampling threads (collector.cpp)

 private:
  const backend::DeviceBackend& api_;
  CollectorOptions options_;
  std::shared_ptr<Shared> shared_;
  std::unique_ptr<XidWatcher> xid_watcher_;  // when options.xid_events
  std::unique_ptr<LiveDiagnosis> diagnosis_;  // when options.diagnose
  std::thread watchdog_;  // when options.one_thread (more than one GPU)
  DiagnosisInput diagnosis_input() const;
};

}  // namespace gpuwatch::live
