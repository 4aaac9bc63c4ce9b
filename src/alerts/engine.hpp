#pragma once
// The local alert engine: evaluates a rule set at every sample tick, with Prometheus'
// semantics (pending from the first true evaluation, firing once `for:` has run out,
// resolved when the condition stops - or the clear condition holds - after keep_firing_for)
// and emits an event per transition: Firing once, Repeat every `repeat` while firing,
// Resolved once. Pure: the caller supplies the samples, the findings and the time.
//
//   alerts::Engine engine(alerts::builtin_rules(), "node1");
//   for each sample tick: for (auto& event : engine.evaluate(tick)) deliver(event);
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "alerts/alert.hpp"
#include "alerts/expression.hpp"
#include "alerts/rule.hpp"
#include "core/snapshot.hpp"
#include "diagnose/finding.hpp"

namespace gpuwatch::alerts {

struct GpuInput {
  unsigned index = 0;
  const core::DeviceSnapshot* sample = nullptr;  // the latest sample; nullptr: never sampled
  std::optional<double> age_s;                   // seconds since that sample
  bool stale = false;                            // older than the stale limit, or its sampler hangs
  std::vector<std::string> process_commands;     // for {{ $process }}
  std::vector<XidSeen> xids;                     // the latest time of each Xid code seen
};

struct TickInput {
  TimePoint now{};
  std::string host;                     // "" : the engine's host
  std::optional<unsigned> gpu_count;    // nullopt: the driver is gone (NVML cannot be used)
  std::vector<GpuInput> gpus;
  std::vector<diagnose::Finding> findings;  // active now
  std::optional<double> sampler_age_s;  // seconds since any GPU's latest finished sample
};

class Engine {
 public:
  Engine(RuleSet rules, std::string host);

  // Once per sample tick, in time order; the events of this tick (pending alerts emit none).
  std::vector<AlertEvent> evaluate(const TickInput& tick);
  std::vector<Alert> active() const;             // pending and firing now (rule order, then GPU)
  std::vector<Alert> recently_resolved() const;  // the last kMaxResolved, newest first
  // From the store at start: firing alerts stay firing without a new Firing event (their
  // last_notified is kept and repeat counts from it); pending ones keep counting their `for:`
  // from their active_since. Alerts of rules not in the set are dropped. A restored pending
  // alert whose condition has no value yet (its windows fill again after the restart, its GPU
  // has no sample yet) is held, not forgotten, for up to kRestoreGrace; from the condition's
  // first value on it goes on as any other (forgotten when false, firing when its `for:` ran out).
  void restore(const std::vector<Alert>& alerts);
  const RuleSet& rules() const { return rules_; }

  static constexpr std::size_t kMaxResolved = 100;
  static constexpr std::chrono::minutes kRestoreGrace{5};

 private:
  // A series' identity within its rule: the node (gpu -1), a GPU, or one problem of a findings
  // rule: the finding's kind and GPUs (gpus "0,1,2,3"; gpu its lead GPU), whatever its severity.
  struct SeriesKey {
    int gpu = -1;
    std::string kind;
    std::string gpus;
    bool operator<(const SeriesKey& o) const;
  };
  // The finding behind a findings rule's alert, in words (its latest evaluation).
  struct FindingText {
    std::string summary, detail;
    std::vector<std::string> advice;
  };
  struct Series {
    WindowSet expr_windows, clear_windows;
    std::string process;  // the GPU's commands at the latest evaluation ({{ $process }})
    std::optional<FindingText> finding;      // findings rules, and rules that cover its kind: the summary and description come from it
    std::optional<Alert> alert;              // pending or firing
    std::optional<TimePoint> keep_since;     // firing, the condition stopped: keep_firing_for counts from here
    bool restored = false;                   // restored pending, its condition not valued since (restore())
    std::optional<TimePoint> held_since;     // ... held from this evaluation on, while it has no value
  };
  struct RuleState {
    std::map<SeriesKey, Series> series;
  };

  struct GpuContext;
  void evaluate_expr_rule(std::size_t r, const TickInput& tick, const std::vector<GpuContext>& gpus,
                          std::vector<AlertEvent>& events);
  void evaluate_findings_rule(std::size_t r, const TickInput& tick, std::vector<AlertEvent>& events);
  Series& series(std::size_t r, const SeriesKey& key);
  // One row per problem (rule.hpp, covers): F would get a findings rule's alert; the pending or
  // firing alert of a rule that covers F's kind on F's GPU (nullptr: none), and that rule's index.
  bool alerted_as_finding(const diagnose::Finding& f) const;
  Series* covering_alert(const diagnose::Finding& f, std::size_t& rule_index);
  // One evaluation of a series: COND (and CLEAR) at NOW, SHOWN the value for {{ $value }};
  // MAKE builds a new alert's identity.
  void step(const Rule& rule, Series& s, std::optional<double> cond, std::optional<double> clear,
            std::optional<double> shown, const TimePoint& now, const std::function<Alert()>& make,
            std::vector<AlertEvent>& events);
  void emit(const Rule& rule, const Series& s, EventKind kind, const TimePoint& now, std::vector<AlertEvent>& events);
  void render_annotations(const Rule& rule, const Series& s, Alert& alert) const;
  // A findings rule's alert whose finding changed severity: the old one resolves, the new one
  // takes over its start (so it fires at once when the rule's for: has run out).
  void change_severity(const Rule& rule, Series& s, Severity severity, const TimePoint& now,
                       std::vector<AlertEvent>& events);
  Alert base_alert(const Rule& rule, const std::string& host) const;

  RuleSet rules_;
  std::string host_;
  std::vector<RuleState> state_;
  std::deque<Alert> resolved_;
  std::vector<std::optional<double>> scratch_, clear_scratch_;
  std::map<unsigned, std::string> uuids_;  // the latest UUID read of each GPU (a lost GPU keeps its label)
};

}  // namespace gpuwatch::alerts
