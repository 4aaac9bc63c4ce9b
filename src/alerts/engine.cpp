#include "alerts/engine.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <tuple>

#include "diagnose/kinds.hpp"

namespace gpuwatch::alerts {
namespace {

double seconds_since_epoch(TimePoint t) { return std::chrono::duration<double>(t.time_since_epoch()).count(); }

double rank_of(diagnose::Severity s) {
  switch (s) {
    case diagnose::Severity::Info: return kRankInfo;
    case diagnose::Severity::Warning: return kRankWarning;
    case diagnose::Severity::Critical: return kRankCritical;
  }
  return kRankNone;
}

Severity from_diagnose(diagnose::Severity s) {
  switch (s) {
    case diagnose::Severity::Info: return Severity::Info;
    case diagnose::Severity::Warning: return Severity::Warning;
    case diagnose::Severity::Critical: return Severity::Critical;
  }
  return Severity::Warning;
}

std::string join_commands(const std::vector<std::string>& commands) {
  std::string out;
  for (const auto& c : commands) out += (out.empty() ? "" : ", ") + c;
  return out;
}

}  // namespace

bool Engine::SeriesKey::operator<(const SeriesKey& o) const {
  return std::tie(gpu, kind, severity) < std::tie(o.gpu, o.kind, o.severity);
}

struct Engine::GpuContext {
  EvalInput in;
  std::array<double, diagnose::kKindCount> ranks{};
  const GpuInput* gpu = nullptr;
};

Engine::Engine(RuleSet rules, std::string host) : rules_(std::move(rules)), host_(std::move(host)) {
  state_.resize(rules_.rules.size());
}

Engine::Series& Engine::series(std::size_t r, const SeriesKey& key) {
  auto& map = state_[r].series;
  auto it = map.find(key);
  if (it != map.end()) return it->second;
  Series s;
  const Rule& rule = rules_.rules[r];
  if (rule.expr) s.expr_windows = make_windows(*rule.expr);
  if (rule.clear) s.clear_windows = make_windows(*rule.clear);
  return map.emplace(key, std::move(s)).first->second;
}

Alert Engine::base_alert(const Rule& rule, const std::string& host) const {
  Alert a;
  a.rule = rule.alert;
  a.severity = rule.severity.value_or(Severity::Warning);
  a.labels = rule.labels;
  a.labels["alertname"] = rule.alert;
  a.labels["severity"] = to_string(a.severity);
  a.labels["host"] = host;
  return a;
}

void Engine::render_annotations(const Rule& rule, const Series& s, Alert& alert) const {
  TemplateData data{alert.value, &alert.labels, s.process};
  // $labels.instance is the host (the Prometheus twin's templates read instance).
  Labels with_instance;
  if (!alert.labels.count("instance")) {
    with_instance = alert.labels;
    with_instance["instance"] = alert.labels.count("host") ? alert.labels.at("host") : host_;
    data.labels = &with_instance;
  }
  alert.annotations.clear();
  alert.raw_annotations.clear();
  for (const auto& [name, t] : rule.annotations) {
    alert.annotations[name] = t.render(data);
    if (t.uses_raw()) alert.raw_annotations[name] = t.render_spans(data);  // the rule's opt-in (issue 31)
  }
}

void Engine::emit(const Rule& rule, const Series& s, EventKind kind, const TimePoint& now,
                  std::vector<AlertEvent>& events) {
  AlertEvent e;
  e.kind = kind;
  e.at = now;
  e.alert = *s.alert;
  render_annotations(rule, s, e.alert);
  events.push_back(std::move(e));
}

void Engine::step(const Rule& rule, Series& s, std::optional<double> cond, std::optional<double> clear,
                  std::optional<double> shown, const TimePoint& now, const std::function<Alert()>& make,
                  std::vector<AlertEvent>& events) {
  const bool truth = cond && *cond != 0;
  if (!s.alert) {
    if (!truth) return;
    Alert a = make();
    a.state = AlertState::Pending;
    a.active_since = now;
    s.alert = std::move(a);
    s.keep_since.reset();
  }
  Alert& a = *s.alert;
  if (shown) a.value = shown;  // a firing alert whose data went missing keeps its last value
  if (a.state == AlertState::Pending) {
    if (!truth) {  // a pending alert whose condition stops (or goes missing) is forgotten
      s.alert.reset();
      return;
    }
    if (now - a.active_since >= rule.for_duration) {
      a.state = AlertState::Firing;
      a.fired_at = now;
      a.last_notified = now;
      emit(rule, s, EventKind::Firing, now, events);
    }
    return;
  }
  // Firing: it holds unless the clear condition is true (hysteresis) or, without one, the
  // condition is false. Absent data holds it: an alert does not resolve because data went missing.
  const bool holds = rule.clear ? !(clear && *clear != 0) : !(cond && *cond == 0);
  if (holds) {
    s.keep_since.reset();
  } else {
    if (!s.keep_since) s.keep_since = now;
    if (now - *s.keep_since >= rule.keep_firing_for) {
      a.state = AlertState::Resolved;
      a.resolved_at = now;
      emit(rule, s, EventKind::Resolved, now, events);
      resolved_.push_front(events.back().alert);
      if (resolved_.size() > kMaxResolved) resolved_.pop_back();
      s.alert.reset();
      s.keep_since.reset();
      return;
    }
  }
  if (rule.repeat.count() > 0 && (!a.last_notified || now - *a.last_notified >= rule.repeat)) {
    a.last_notified = now;
    emit(rule, s, EventKind::Repeat, now, events);
  }
}

std::vector<AlertEvent> Engine::evaluate(const TickInput& tick) {
  std::vector<AlertEvent> events;
  const double now_s = seconds_since_epoch(tick.now);
  // Per-GPU inputs, shared by every rule.
  std::vector<GpuContext> gpus(tick.gpus.size());
  for (std::size_t i = 0; i < tick.gpus.size(); ++i) {
    const GpuInput& g = tick.gpus[i];
    GpuContext& c = gpus[i];
    c.gpu = &g;
    c.in.now_s = now_s;
    c.in.device = g.sample;
    c.in.age_s = g.age_s;
    c.in.stale = g.stale;
    c.in.xids = &g.xids;
    if (g.sample && g.sample->state == core::DeviceState::Ok && g.sample->processes_status == core::FieldStatus::Ok)
      c.in.processes = static_cast<double>(g.sample->processes.size());
    if (g.sample && g.sample->state == core::DeviceState::Ok)
      if (auto uuid = g.sample->get(core::FieldId::Uuid).as_string(); uuid && !uuid->empty()) uuids_[g.index] = *uuid;
    for (const auto& f : tick.findings) {
      if (!f.active) continue;
      if (std::find(f.gpus.begin(), f.gpus.end(), g.index) == f.gpus.end()) continue;
      for (const auto& k : diagnose::kind_table()) {
        if (k.id != f.kind) continue;
        double& r = c.ranks[static_cast<std::size_t>(k.kind)];
        r = std::max(r, rank_of(f.severity));
      }
    }
    c.in.finding_ranks = c.ranks.data();
    c.in.gpus = tick.gpu_count ? std::optional<double>(*tick.gpu_count) : std::nullopt;
    c.in.driver_up = tick.gpu_count.has_value();
    c.in.sampler_age_s = tick.sampler_age_s;
  }
  for (std::size_t r = 0; r < rules_.rules.size(); ++r) {
    const Rule& rule = rules_.rules[r];
    if (!rule.local) continue;
    if (rule.is_findings_rule()) evaluate_findings_rule(r, tick, events);
    else evaluate_expr_rule(r, tick, gpus, events);
  }
  return events;
}

void Engine::evaluate_expr_rule(std::size_t r, const TickInput& tick, const std::vector<GpuContext>& gpus,
                                std::vector<AlertEvent>& events) {
  const Rule& rule = rules_.rules[r];
  const std::string& host = tick.host.empty() ? host_ : tick.host;
  auto run = [&](Series& s, const EvalInput& in, std::optional<int> gpu) {
    auto cond = rule.expr->evaluate(in, s.expr_windows, scratch_);
    std::optional<double> clear;
    if (rule.clear) clear = rule.clear->evaluate(in, s.clear_windows, clear_scratch_);
    const auto shown = rule.expr->shown_value(scratch_);
    auto make = [&] {
      Alert a = base_alert(rule, host);
      if (gpu) {
        a.gpu = static_cast<unsigned>(*gpu);
        a.labels["gpu"] = std::to_string(*gpu);
        if (auto it = uuids_.find(a.gpu.value()); it != uuids_.end()) a.labels["uuid"] = it->second;
        if (rule.expr->uses_xids())
          if (auto x = rule.expr->matched_xid(in)) a.labels["xid"] = std::to_string(*x);
      }
      return a;
    };
    step(rule, s, cond, clear, shown, tick.now, make, events);
  };
  if (rule.scope == Scope::Node) {
    EvalInput in;
    in.now_s = seconds_since_epoch(tick.now);
    in.gpus = tick.gpu_count ? std::optional<double>(*tick.gpu_count) : std::nullopt;
    in.driver_up = tick.gpu_count.has_value();
    in.sampler_age_s = tick.sampler_age_s;
    run(series(r, SeriesKey{}), in, std::nullopt);
    return;
  }
  std::set<int> seen;
  for (const auto& c : gpus) {
    const int gpu = static_cast<int>(c.gpu->index);
    seen.insert(gpu);
    Series& s = series(r, SeriesKey{gpu, {}, -1});
    run(s, c.in, gpu);
    if (s.alert) s.process = join_commands(c.gpu->process_commands);
  }
  // GPUs not in this tick: their values are absent (a pending alert is dropped, a firing one stays).
  for (auto& [key, s] : state_[r].series) {
    if (seen.count(key.gpu)) continue;
    step(rule, s, std::nullopt, std::nullopt, std::nullopt, tick.now, [] { return Alert{}; }, events);
  }
}

void Engine::evaluate_findings_rule(std::size_t r, const TickInput& tick, std::vector<AlertEvent>& events) {
  const Rule& rule = rules_.rules[r];
  const std::string& host = tick.host.empty() ? host_ : tick.host;
  const auto min_rank = rank_of(static_cast<diagnose::Severity>(*rule.findings_min_severity));
  // The active (GPU, kind, severity) triples at or above the rule's severity, as gpuwatch_finding.
  std::set<SeriesKey> now_active;
  for (const auto& f : tick.findings) {
    if (!f.active || rank_of(f.severity) < min_rank) continue;
    for (unsigned g : f.gpus) now_active.insert(SeriesKey{static_cast<int>(g), f.kind, static_cast<int>(f.severity)});
  }
  for (const auto& key : now_active) {
    Series& s = series(r, key);
    auto make = [&] {
      Alert a = base_alert(rule, host);
      a.severity = from_diagnose(static_cast<diagnose::Severity>(key.severity));
      a.labels["severity"] = to_string(a.severity);
      a.gpu = static_cast<unsigned>(key.gpu);
      a.labels["gpu"] = std::to_string(key.gpu);
      a.labels["kind"] = key.kind;
      if (auto it = uuids_.find(a.gpu.value()); it != uuids_.end()) a.labels["uuid"] = it->second;
      return a;
    };
    step(rule, s, 1.0, std::nullopt, rank_of(static_cast<diagnose::Severity>(key.severity)), tick.now, make, events);
  }
  for (auto it = state_[r].series.begin(); it != state_[r].series.end();) {
    if (!now_active.count(it->first)) step(rule, it->second, 0.0, std::nullopt, std::nullopt, tick.now, [] { return Alert{}; }, events);
    // A finding series without an alert holds no state worth keeping (no windows).
    if (!it->second.alert) it = state_[r].series.erase(it);
    else ++it;
  }
}

std::vector<Alert> Engine::active() const {
  std::vector<Alert> out;
  for (std::size_t r = 0; r < rules_.rules.size(); ++r) {
    for (const auto& [key, s] : state_[r].series) {
      if (!s.alert) continue;
      Alert a = *s.alert;
      render_annotations(rules_.rules[r], s, a);
      out.push_back(std::move(a));
    }
  }
  return out;
}

std::vector<Alert> Engine::recently_resolved() const { return {resolved_.begin(), resolved_.end()}; }

void Engine::restore(const std::vector<Alert>& alerts) {
  for (const Alert& a : alerts) {
    if (a.state == AlertState::Resolved) {
      if (resolved_.size() < kMaxResolved) resolved_.push_back(a);
      continue;
    }
    for (std::size_t r = 0; r < rules_.rules.size(); ++r) {
      const Rule& rule = rules_.rules[r];
      if (!rule.local || rule.alert != a.rule) continue;
      if (rule.severity && *rule.severity != a.severity) continue;
      SeriesKey key;
      if (rule.scope == Scope::Gpu) {
        if (!a.gpu) continue;
        key.gpu = static_cast<int>(*a.gpu);
      }
      if (rule.is_findings_rule()) {
        auto kind = a.labels.find("kind");
        if (kind == a.labels.end()) continue;
        key.kind = kind->second;
        key.severity = static_cast<int>(a.severity);
      }
      Series& s = series(r, key);
      s.alert = a;
      if (a.gpu)
        if (auto uuid = a.labels.find("uuid"); uuid != a.labels.end()) uuids_.emplace(*a.gpu, uuid->second);
      break;
    }
  }
}

}  // namespace gpuwatch::alerts
