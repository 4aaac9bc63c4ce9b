#include "live/live_session.hpp"

#include <utility>

#include "alert_runtime/tick_input.hpp"
#include "history/live_priming.hpp"
#include "live/diagnosis_input.hpp"
#include "live/live_identities.hpp"
#include "sampler/gpu_identities.hpp"

namespace gpuwatch::live {
namespace {

// What the diagnosis tick read, in the alert input's words.
alerts::TickInput alert_tick_of(const DiagnosisInput& input, const std::vector<diagnose::Finding>& findings,
                                std::chrono::system_clock::time_point now, const std::string& host) {
  std::vector<alert_runtime::GpuFreshness> freshness;
  freshness.reserve(input.freshness.size());
  for (const auto& f : input.freshness) freshness.push_back({f.index, f.has_sample, f.age_s, f.stale});
  std::vector<alert_runtime::GpuXid> xids;
  xids.reserve(input.xids.size());
  for (const auto& x : input.xids) xids.push_back({x.gpu, x.xid, x.last_seen_unix_s});
  return alert_runtime::make_tick_input(input.snapshot, freshness, xids, findings, now, host);
}

}  // namespace

core::Result<std::unique_ptr<LiveSession>> LiveSession::open(const backend::DeviceBackend& api, LiveSessionOptions options) {
  std::unique_ptr<LiveSession> session(new LiveSession());
  LiveSession& s = *session;
  s.options_ = std::move(options);
  LiveSessionOptions& o = s.options_;
  auto log = [&o](const std::string& line) {
    if (o.log) o.log(line);
  };

  // The alert engine first: its state restored from the history, before the first tick.
  if (o.alerts) {
    alert_runtime::LiveAlertsOptions alert_options;
    alert_options.db_path = o.alerts_db;
    alert_options.host = o.host;
    alert_options.time_scale = o.time_scale;
    alert_options.log = o.log;
    if (o.diagnosis == DiagnosisMode::Background) {  // serve's HTTP board (/api/v1/alerts, gpuwatch_alerts)
      s.alert_board_ = std::make_shared<AlertBoard>();
      alert_options.publish = [board = s.alert_board_](std::vector<alerts::Alert> active,
                                                       const std::vector<alerts::AlertEvent>& events) {
        board->publish(std::move(active), events);
      };
    }
    auto started = alert_runtime::LiveAlerts::start(std::move(*o.alerts), alert_options);
    o.alerts.reset();
    if (!started) return started.error();
    s.alerts_ = std::move(*started);
    if (s.alert_board_) s.alert_board_->publish(s.alerts_->active(), {});  // the restored alerts, before the first tick
    if (o.tell_alerts) log("alerts: " + s.alerts_->summary());
  }

  // Continuity (issue 23): the diagnosis goes on from this node's recorded history.
  diagnose::Diagnoser primed;
  if (o.diagnosis != DiagnosisMode::Off && !o.prime_from.empty()) {
    const auto priming =
        history::prime_diagnoser(o.prime_from, sampler::gpu_identities(api), std::chrono::system_clock::now(), primed);
    if (o.tell_priming) {
      if (auto line = history::describe_priming(priming, primed); !line.empty()) log(line);
    }
  }

  CollectorOptions sampling = o.sampling;
  if (o.recorder) {
    sampling.on_sample = [recorder = o.recorder, hook = std::move(sampling.on_sample)](
                             const core::DeviceSnapshot& device, std::chrono::system_clock::time_point started) {
      recorder->push(device, started);
      if (hook) hook(device, started);
    };
  }
  sampling.diagnose = o.diagnosis == DiagnosisMode::Background;
  sampling.alert_board = s.alert_board_;
  switch (o.diagnosis) {
    case DiagnosisMode::Background:
      sampling.primed_diagnosis = std::make_shared<diagnose::Diagnoser>(std::move(primed));
      // On the diagnosis thread, after every tick: never on a sampling thread.
      sampling.on_diagnosis_tick = [alerts = s.alerts_.get(), host = o.host, on_findings = o.on_findings](
                                       const DiagnosisInput& input, const std::vector<diagnose::Finding>& findings,
                                       std::chrono::system_clock::time_point now) {
        if (alerts != nullptr) alerts->tick(alert_tick_of(input, findings, now, host));
        if (on_findings) on_findings(findings);
      };
      break;
    case DiagnosisMode::OnRead:
      s.on_read_ = std::make_unique<LiveDiagnosis>([&s] { return std::move(s.read_input_); }, sampling.interval,
                                                   LiveDiagnosis::TickHook{}, std::move(primed),
                                                   proc_identity_reader("/proc", sampling.attributor));
      break;
    case DiagnosisMode::WholeTicks:
      s.whole_ticks_ = std::make_unique<diagnose::Diagnoser>(std::move(primed));
      s.whole_tick_findings_ = s.whole_ticks_->findings();  // ongoing, from the history
      break;
    case DiagnosisMode::Off:
      break;
  }
  s.collector_ = std::make_unique<Collector>(api, std::move(sampling));
  return session;
}

LiveSession::~LiveSession() {
  if (!stopped_) stop(std::chrono::seconds(1));
}

void LiveSession::start() {
  if (options_.recorder) options_.recorder->start();
  collector_->start();
  collector_stopped_ = false;
}

bool LiveSession::stop_sampling(std::chrono::milliseconds timeout) {
  if (!collector_stopped_) sampling_stopped_cleanly_ = collector_->stop(timeout);
  collector_stopped_ = true;
  return sampling_stopped_cleanly_;
}

bool LiveSession::stop(std::chrono::milliseconds timeout) {
  const bool clean = stop_sampling(timeout);  // the diagnosis thread too: no alert tick after it
  if (!stopped_) {
    if (alerts_) alerts_->stop();  // notifications in flight are cut short and stay queued
    if (options_.recorder) options_.recorder->stop();  // the last batch is written
  }
  stopped_ = true;
  return clean;
}

void LiveSession::with_view(const std::function<void(const LiveView&)>& fn) {
  collector_->with_view([&](const LiveView& view) {
    fn(view);
    if (!on_read_) return;
    std::vector<std::optional<double>> sample_age_s;
    sample_age_s.reserve(view.status.size());
    for (const DeviceStatus& status : view.status) {
      sample_age_s.push_back(status.has_sample ? std::optional(status.sample_age_seconds) : std::nullopt);
    }
    read_input_ = make_diagnosis_input(*view.snapshot, sample_age_s,
                                       std::chrono::duration<double>(collector_->stale_after()).count(), view.xid_events);
  });
}

std::string LiveSession::alerts_summary() const { return alerts_ ? alerts_->summary() : std::string(); }

void LiveSession::record_xid_counts() {
  if (!options_.recorder) return;
  std::vector<XidCount> xids;
  collector_->with_view([&xids](const LiveView& view) { xids = view.xid_events; });
  options_.recorder->push_xid_counts(std::move(xids));
}

void LiveSession::tick_diagnosis(std::chrono::system_clock::time_point now) {
  if (on_read_) on_read_->tick(now);
}

std::vector<diagnose::Finding> LiveSession::findings() const {
  if (on_read_) return on_read_->active();
  if (whole_ticks_) return whole_tick_findings_;
  std::vector<diagnose::Finding> out;
  collector_->with_view([&out](const LiveView& view) { out = view.findings; });
  return out;
}

std::vector<diagnose::Finding> LiveSession::observe(const core::Snapshot& tick) {
  if (!whole_ticks_) return {};
  whole_ticks_->observe(tick);
  whole_tick_findings_ = whole_ticks_->findings();
  if (alerts_) alerts_->tick(alert_runtime::make_tick_input(tick, whole_tick_findings_, options_.host));
  return whole_tick_findings_;
}

}  // namespace gpuwatch::live
