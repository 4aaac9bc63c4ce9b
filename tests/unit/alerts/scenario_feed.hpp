#pragma once
// Test support: the built-in rules run by the engine on a simulated scenario, in scenario
// time (1 s ticks), with live findings from diagnose::Diagnoser and the Xids the scenario
// raises, as `serve` would feed them. Records every event and each tick's snapshot so that
// tests can check an alert's time against the raw values (its for: deadline).
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "alerts/builtin_rules.hpp"
#include "alerts/engine.hpp"
#include "diagnose/diagnoser.hpp"
#include "unit/diagnose/sim_feed.hpp"

namespace gpuwatch::alerts::testing {

using diagnose::testing::SimFeed;

struct ScenarioRun {
  std::vector<AlertEvent> events;
  std::vector<core::Snapshot> snapshots;  // one per tick, index = scenario second / step
  std::vector<std::vector<diagnose::Finding>> findings;  // the live findings of each tick
  std::vector<std::vector<Alert>> active;  // the engine's active alerts after each tick
  std::vector<diagnose::XidEvent> xids;    // every Xid of the run
  double step_s = 1;

  // Scenario seconds of the first Firing event of ALERT on GPU (nullopt: none).
  std::optional<double> first_firing(const std::string& alert, std::optional<unsigned> gpu) const {
    for (const auto& e : events)
      if (e.kind == EventKind::Firing && e.alert.rule == alert && e.alert.gpu == gpu) return seconds(e.at);
    return std::nullopt;
  }
  std::optional<double> first_resolved(const std::string& alert, std::optional<unsigned> gpu) const {
    for (const auto& e : events)
      if (e.kind == EventKind::Resolved && e.alert.rule == alert && e.alert.gpu == gpu) return seconds(e.at);
    return std::nullopt;
  }
  // The first scenario second from which PRED held on GPU up to (and including) UNTIL.
  std::optional<double> onset(unsigned gpu, double until, const std::function<bool(const core::DeviceSnapshot&)>& pred) const {
    std::optional<double> since;
    for (std::size_t i = 0; i < snapshots.size(); ++i) {
      const double t = static_cast<double>(i) * step_s;
      if (t > until) break;
      const bool holds = gpu < snapshots[i].devices.size() && pred(snapshots[i].devices[gpu]);
      if (holds && !since) since = t;
      if (!holds) since.reset();
    }
    return since;
  }
  std::string listing() const {
    std::ostringstream o;
    for (const auto& e : events) {
      o << "  " << seconds(e.at) << " s " << to_string(e.kind) << " " << e.alert.rule << " ("
        << to_string(e.alert.severity) << ")";
      if (e.alert.gpu) o << " gpu " << *e.alert.gpu;
      if (auto k = e.alert.labels.find("kind"); k != e.alert.labels.end()) o << " kind " << k->second;
      o << ": " << (e.alert.annotations.count("summary") ? e.alert.annotations.at("summary") : "") << "\n";
    }
    return o.str();
  }
  static double seconds(TimePoint t) {
    return std::chrono::duration<double>(t - diagnose::testing::at_s(0)).count();
  }
};

inline double field(const core::DeviceSnapshot& d, core::FieldId id) {
  return d.state == core::DeviceState::Ok ? d.get(id).as_double().value_or(-1) : -1;
}

inline ScenarioRun run_scenario(const std::string& name, double seconds, double step_s = 1,
                                const RuleSet& rules = builtin_rules_ref()) {
  SimFeed feed = SimFeed::builtin(name);
  Engine engine(rules, "n1");
  diagnose::Diagnoser diagnoser;
  ScenarioRun run;
  run.step_s = step_s;
  std::size_t xids_seen = 0;
  for (double t = 0; t <= seconds + 1e-9; t += step_s) {
    core::Snapshot snap = feed.snapshot(t, step_s);
    diagnoser.observe(snap);
    auto xids = feed.xids_until(t);
    for (std::size_t i = xids_seen; i < xids.size(); ++i) diagnoser.observe_xid(xids[i].gpu, xids[i].xid, xids[i].at);
    xids_seen = xids.size();
    run.snapshots.push_back(snap);
    const core::Snapshot& s = run.snapshots.back();
    TickInput tick;
    tick.now = s.timestamp;
    tick.gpu_count = s.device_count;
    tick.findings = diagnoser.findings();
    tick.sampler_age_s = 0;
    for (const auto& d : s.devices) {
      GpuInput g;
      g.index = d.index;
      g.sample = &d;
      g.age_s = 0;
      for (const auto& p : d.processes) g.process_commands.push_back(p.name);
      std::map<std::uint64_t, TimePoint> latest;
      for (const auto& x : xids)
        if (x.gpu == d.index) latest[x.xid] = std::max(latest[x.xid], x.at);
      for (const auto& [code, when] : latest) g.xids.push_back({code, when});
      tick.gpus.push_back(std::move(g));
    }
    for (auto& e : engine.evaluate(tick)) run.events.push_back(std::move(e));
    run.findings.push_back(tick.findings);
    run.active.push_back(engine.active());
    run.xids = xids;
  }
  return run;
}

}  // namespace gpuwatch::alerts::testing
