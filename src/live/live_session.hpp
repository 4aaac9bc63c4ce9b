#pragma once
// The live pipeline, assembled in one place for every command that runs it (serve, record, run,
// top): sampling (the Collector: one thread per GPU, or one for all), the Xid watch, the live
// diagnosis (primed from the recorded history), the alert engine's tick and the hook into the
// recorder. A command fills LiveSessionOptions and reads the results; it never builds the parts.
//
// A sample's path: a GPU's sampling thread -> the view (with_view) and the recorder's queue ->
// the diagnosis (the collector's thread every interval, the caller's read, or a whole tick the
// caller grouped) -> the findings -> the alert engine (alert_runtime/tick_input.hpp) -> the board.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "alert_runtime/live_alerts.hpp"
#include "core/result.hpp"
#include "diagnose/finding.hpp"
#include "live/alert_board.hpp"
#include "live/collector.hpp"
#include "live/live_diagnosis.hpp"
#include "live/sample_recorder.hpp"
#include "backend/device_backend.hpp"

namespace gpuwatch::live {

enum class DiagnosisMode {
  Off,
  Background,   // serve, run: the collector's diagnosis thread, once per interval; alerts after each tick
  OnRead,       // top: tick_diagnosis() on the caller's thread, from what with_view() last copied
  WholeTicks,   // record: observe() each whole tick the caller grouped; alerts after each
};

struct LiveSessionOptions {
  // What to sample and how (interval, fields, processes, hooks into the view). The session sets
  // diagnose, on_diagnosis_tick, primed_diagnosis and alert_board itself; on_sample is called
  // after the recorder's push.
  CollectorOptions sampling;
  DiagnosisMode diagnosis = DiagnosisMode::Off;
  // The history database the diagnosis starts from (history/live_priming.hpp); "": afresh.
  std::string prime_from;
  bool tell_priming = false;  // log the priming's one line (when it has one)
  // The local alert engine (prepared and checked by the command); none: no alerts. Evaluated after
  // each diagnosis tick (Background, WholeTicks), never on a sampling thread.
  std::optional<alert_runtime::PreparedAlerts> alerts;
  std::string alerts_db;      // where its state and delivery queue are kept; "": in memory
  std::string host;           // the alerts' host label
  double time_scale = 1;      // a simulated scenario's time scale
  bool tell_alerts = false;   // log "alerts: SUMMARY" once they started
  // Where every finished sample goes (serve, run); null: not recorded.
  std::shared_ptr<SampleRecorder> recorder;
  // Background: after each diagnosis tick, the findings active then (run's summary).
  std::function<void(const std::vector<diagnose::Finding>&)> on_findings;
  // One line for stderr (the command prefixes it).
  std::function<void(const std::string&)> log;
};

class LiveSession {
 public:
  // Primes the diagnosis, starts the alert engine (its state restored) and builds the collector;
  // nothing samples until start(). An error: the alert engine could not start.
  static core::Result<std::unique_ptr<LiveSession>> open(const backend::DeviceBackend& api, LiveSessionOptions options);
  ~LiveSession();  // stop(1 s)
  LiveSession(const LiveSession&) = delete;
  LiveSession& operator=(const LiveSession&) = delete;

  // The recorder's thread, then the sampling threads (and the diagnosis thread).
  void start();
  // The collector (its diagnosis thread: no alert ticks after it), the alert engine (what is
  // unsent stays queued), the recorder (its last batch). False when a sampling thread is still
  // inside an NVML call: the caller must then not unload NVML. Idempotent.
  bool stop(std::chrono::milliseconds timeout);
  // The sampling threads only (record drains what they sampled, then stop()s). Idempotent.
  bool stop_sampling(std::chrono::milliseconds timeout);

  const Collector& collector() const { return *collector_; }
  // Calls FN with the latest view, under the collector's lock. OnRead: also copies what the
  // next tick_diagnosis() reads, in the same lock.
  void with_view(const std::function<void(const LiveView&)>& fn);

  // The alert engine's board (/api/v1/alerts, gpuwatch_alerts); null without alerts.
  const std::shared_ptr<AlertBoard>& alert_board() const { return alert_board_; }
  // "24 rules (built-in), ..."; "" without alerts.
  std::string alerts_summary() const;

  // Hands the Xid counts so far to the recorder (it writes the new events); no-op without one.
  void record_xid_counts();

  // OnRead: one diagnosis tick now, from what with_view() copied last.
  void tick_diagnosis(std::chrono::system_clock::time_point now);
  // The findings active now: the latest tick's (Background, OnRead) or the latest observe()'s.
  std::vector<diagnose::Finding> findings() const;
  // WholeTicks: diagnoses one whole tick (every GPU's sample of it) and evaluates the alerts on
  // it; the findings active after it.
  std::vector<diagnose::Finding> observe(const core::Snapshot& tick);

 private:
  LiveSession() = default;
  LiveSessionOptions options_;
  std::shared_ptr<AlertBoard> alert_board_;
  std::unique_ptr<alert_runtime::LiveAlerts> alerts_;
  std::unique_ptr<Collector> collector_;
  // OnRead: ticked by tick_diagnosis() from read_input_; WholeTicks: the engine observe() feeds.
  std::unique_ptr<LiveDiagnosis> on_read_;
  DiagnosisInput read_input_;
  std::unique_ptr<diagnose::Diagnoser> whole_ticks_;
  std::vector<diagnose::Finding> whole_tick_findings_;
  bool stopped_ = false;
  bool collector_stopped_ = true;
  bool sampling_stopped_cleanly_ = true;
};

}  // namespace gpuwatch::live
