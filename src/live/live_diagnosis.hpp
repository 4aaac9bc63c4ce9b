#pragma once
// serve's live findings: a thread that, once per interval, takes the collector's latest
// sample of every GPU (one consistent copy, under the collector's lock, never an NVML call)
// and feeds it to the diagnose engine, incrementally: no re-scan of the history per tick.
// New Xids (counts that grew) go in as Xid events. Scrapes and the JSON API read the active
// findings under this object's own lock.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/snapshot.hpp"
#include "diagnose/diagnoser.hpp"
#include "diagnose/finding.hpp"
#include "live/live_identities.hpp"
#include "live/xid_count.hpp"

namespace gpuwatch::live {

// What one tick reads from the collector: the latest samples of the GPUs that have one (a GPU
// that never answered is left out) and the Xid counts so far.
struct DiagnosisInput {
  core::Snapshot snapshot;
  std::vector<XidCount> xids;
  // Every GPU the collector samples (those with no sample yet too), in index order: how old its
  // latest sample is, and whether the watchdog calls it stale (its thread hangs in NVML).
  struct Freshness {
    unsigned index = 0;
    bool has_sample = false;
    double age_s = 0;
    bool stale = false;
  };
  std::vector<Freshness> freshness;
};

class LiveDiagnosis {
 public:
  using Source = std::function<DiagnosisInput()>;
  // Called after each tick with what it read and the findings active then (serve's alert engine).
  using TickHook = std::function<void(const DiagnosisInput&, const std::vector<diagnose::Finding>&,
                                      std::chrono::system_clock::time_point)>;
  // PRIMED: the engine as it starts, e.g. fed the recorded history (history/live_priming.hpp): its
  // active findings are active() at once, before the first tick, and the ticks go on from it.
  // IDENTITIES: who runs each new process (live_identities.hpp), read on the ticking thread so the
  // GPUs of one job are grouped by command, launcher, user, Slurm job or pod; empty: by name only.
  // A PRIMED engine keeps the grouping the history gave the processes running at the first tick.
  LiveDiagnosis(Source source, std::chrono::milliseconds interval, TickHook on_tick = {},
                diagnose::Diagnoser primed = {}, IdentityReader identities = {});
  ~LiveDiagnosis();  // stops the thread
  LiveDiagnosis(const LiveDiagnosis&) = delete;
  LiveDiagnosis& operator=(const LiveDiagnosis&) = delete;

  void start();
  void stop();
  // One evaluation now (the thread calls this every interval; tests call it directly).
  void tick(std::chrono::system_clock::time_point now);

  std::vector<diagnose::Finding> active() const;  // the findings active at the latest tick

 private:
  Source source_;
  std::chrono::milliseconds interval_;
  TickHook on_tick_;
  diagnose::Diagnoser diagnoser_;  // used by the ticking thread only
  LiveIdentities identities_;      // likewise
  bool adopt_processes_;           // primed: the first tick's processes keep the history's grouping
  std::vector<XidCount> seen_xids_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<diagnose::Finding> active_;
  std::thread thread_;
};

}  // namespace gpuwatch::live
