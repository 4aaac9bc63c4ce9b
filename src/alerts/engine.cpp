#include "alerts/engine.hpp"

#include <algorithm>
#include <array>
#include <charconv>
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

// A finding's GPUs as its alert's `gpus` label: "0,1,2,3", by index.
std::string finding_gpus_label(std::vector<unsigned> gpus) {
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  std::string out;
  for (unsigned g : gpus) out += (out.empty() ? "" : ",") + std::to_string(g);
  return out;
}

// The GPU a finding's alert is filed under: its cause when the diagnosis named one, else its first.
unsigned finding_lead_gpu(const diagnose::Finding& f) {
  return !f.cause_gpus.empty() ? f.cause_gpus.front() : f.gpus.front();
}

// "GPU 6" / "GPUs 0,1,2,3", as a finding alert's summary opens.
std::string finding_gpus_words(const std::string& gpus_label) {
  return (gpus_label.find(',') == std::string::npos ? "GPU " : "GPUs ") + gpus_label;
}

// A finding over several GPUs (a job's hang): its own alert is the problem's one row (rule.hpp, covers).
bool finding_spans_several_gpus(const diagnose::Finding& f) {
  return std::any_of(f.gpus.begin(), f.gpus.end(), [&](unsigned g) { return g != f.gpus.front(); });
}

// The active finding on GPU that RULE stands for (one of its `covers` kinds): the worst, a job's on a tie.
const diagnose::Finding* finding_covered_by(const Rule& rule, const std::vector<diagnose::Finding>& findings, unsigned gpu) {
  const diagnose::Finding* out = nullptr;
  for (const auto& f : findings) {
    if (!f.active || std::find(rule.covers.begin(), rule.covers.end(), f.kind) == rule.covers.end()) continue;
    if (std::find(f.gpus.begin(), f.gpus.end(), gpu) == f.gpus.end()) continue;
    if (!out || f.severity > out->severity ||
        (f.severity == out->severity && finding_spans_several_gpus(f) && !finding_spans_several_gpus(*out)))
      out = &f;
  }
  return out;
}

std::string join_commands(const std::vector<std::string>& commands) {
  std::string out;
  for (const auto& c : commands) out += (out.empty() ? "" : ", ") + c;
  return out;
}

}  // namespace

bool Engine::SeriesKey::operator<(const SeriesKey& o) const {
  return std::tie(gpu, kind, gpus) < std::tie(o.gpu, o.kind, o.gpus);
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
  // A finding's alert says what the finding says ("GPU 6 on n1: PID 4242 leaks 280 MiB/s..."), not
  // its kind and severity: the diagnosis's words are data, encoded for each channel, never raw.
  // The same for a rule that covers the finding's kind (rule.hpp, covers): one row, the finding's words.
  if (s.finding && !(s.finding->summary.empty() && s.finding->detail.empty())) {
    const std::string& instance = data.labels->count("instance") ? data.labels->at("instance") : host_;
    const std::string gpus = alert.labels.count("gpus") ? alert.labels.at("gpus")
                             : alert.gpu                ? std::to_string(*alert.gpu)
                                                        : std::string();
    const std::string& sentence = s.finding->summary.empty() ? s.finding->detail : s.finding->summary;
    alert.annotations["summary"] = finding_gpus_words(gpus) + " on " + instance + ": " + sentence;
    std::string description = s.finding->detail.empty() ? sentence : s.finding->detail;
    for (const auto& a : s.finding->advice) description += "\ntry: " + a;
    alert.annotations["description"] = description;
    alert.raw_annotations.erase("summary");
    alert.raw_annotations.erase("description");
  }
}

void Engine::change_severity(const Rule& rule, Series& s, Severity severity, const TimePoint& now,
                             std::vector<AlertEvent>& events) {
  Alert& a = *s.alert;
  if (a.state == AlertState::Firing) {  // the old severity's alert resolves (its fingerprint ends)
    a.state = AlertState::Resolved;
    a.resolved_at = now;
    emit(rule, s, EventKind::Resolved, now, events);
    resolved_.push_front(events.back().alert);
    if (resolved_.size() > kMaxResolved) resolved_.pop_back();
    a.state = AlertState::Pending;  // the new one counts its for: from the problem's start
    a.fired_at.reset();
    a.resolved_at.reset();
    a.last_notified.reset();
  }
  a.severity = severity;
  a.labels["severity"] = to_string(severity);
  s.keep_since.reset();
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
    if (!cond && s.restored) {  // restored, its condition not valued yet: held (restore())
      if (!s.held_since) s.held_since = now;
      if (now - *s.held_since < kRestoreGrace) return;
    }
    s.restored = false;
    s.held_since.reset();
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
  // The expr rules first: a findings rule skips the problems a covering rule's alert stands for now.
  for (std::size_t r = 0; r < rules_.rules.size(); ++r)
    if (rules_.rules[r].local && !rules_.rules[r].is_findings_rule()) evaluate_expr_rule(r, tick, gpus, events);
  for (std::size_t r = 0; r < rules_.rules.size(); ++r)
    if (rules_.rules[r].local && rules_.rules[r].is_findings_rule()) evaluate_findings_rule(r, tick, events);
  return events;
}

void Engine::evaluate_expr_rule(std::size_t r, const TickInput& tick, const std::vector<GpuContext>& gpus,
                                std::vector<AlertEvent>& events) {
  const Rule& rule = rules_.rules[r];
  const std::string& host = tick.host.empty() ? host_ : tick.host;
  // QUIET: the problem is a finding's row (several GPUs, rule.hpp covers): the windows are fed,
  // the condition reads false.
  auto run = [&](Series& s, const EvalInput& in, std::optional<int> gpu, bool quiet = false) {
    auto cond = rule.expr->evaluate(in, s.expr_windows, scratch_);
    std::optional<double> clear;
    if (rule.clear) clear = rule.clear->evaluate(in, s.clear_windows, clear_scratch_);
    if (quiet) {
      cond = 0.0;
      if (rule.clear) clear = 1.0;
    }
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
    Series& s = series(r, SeriesKey{gpu, {}, {}});
    const diagnose::Finding* covered = rule.covers.empty() ? nullptr : finding_covered_by(rule, tick.findings, c.gpu->index);
    const bool quiet = covered && finding_spans_several_gpus(*covered) && alerted_as_finding(*covered);
    if (covered && !quiet) s.finding = FindingText{covered->summary, covered->detail, covered->advice};
    else s.finding.reset();
    run(s, c.in, gpu, quiet);
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
  // One series per problem: an active finding at or above the rule's severity, by kind and GPUs
  // (a hang over GPUs 0-3 is one alert, not four; an escalation is the same alert).
  std::set<SeriesKey> now_active;
  std::vector<std::pair<std::size_t, Series*>> handovers;  // covering rule, its pending series
  for (const auto& f : tick.findings) {
    if (!f.active || f.gpus.empty() || rank_of(f.severity) < min_rank) continue;
    SeriesKey key{static_cast<int>(*std::min_element(f.gpus.begin(), f.gpus.end())), f.kind, finding_gpus_label(f.gpus)};
    if (!finding_spans_several_gpus(f)) {
      std::size_t cover_rule = 0;
      if (Series* cover = covering_alert(f, cover_rule)) {  // that alert is the problem's row
        // This alert had paged already: the covering one fires now, as this one resolves.
        auto mine = state_[r].series.find(key);
        if (mine != state_[r].series.end() && mine->second.alert && mine->second.alert->state == AlertState::Firing &&
            cover->alert->state == AlertState::Pending)
          handovers.emplace_back(cover_rule, cover);
        continue;
      }
    }
    if (!now_active.insert(key).second) continue;  // the same problem twice (two PIDs): the first
    Series& s = series(r, key);
    s.finding = FindingText{f.summary, f.detail, f.advice};
    const Severity severity = from_diagnose(f.severity);
    if (s.alert && s.alert->severity != severity) change_severity(rule, s, severity, tick.now, events);
    auto make = [&] {
      Alert a = base_alert(rule, host);
      a.severity = severity;
      a.labels["severity"] = to_string(a.severity);
      a.gpu = finding_lead_gpu(f);
      a.labels["gpu"] = std::to_string(*a.gpu);
      if (key.gpus.find(',') != std::string::npos) a.labels["gpus"] = key.gpus;
      a.labels["kind"] = f.kind;
      if (auto it = uuids_.find(a.gpu.value()); it != uuids_.end()) a.labels["uuid"] = it->second;
      return a;
    };
    step(rule, s, 1.0, std::nullopt, rank_of(f.severity), tick.now, make, events);
  }
  for (auto it = state_[r].series.begin(); it != state_[r].series.end();) {
    if (!now_active.count(it->first)) step(rule, it->second, 0.0, std::nullopt, std::nullopt, tick.now, [] { return Alert{}; }, events);
    // A finding series without an alert holds no state worth keeping (no windows).
    if (!it->second.alert) it = state_[r].series.erase(it);
    else ++it;
  }
  for (auto& [cover_rule, cover] : handovers) {
    if (cover->alert->state != AlertState::Pending) continue;
    cover->alert->state = AlertState::Firing;
    cover->alert->fired_at = tick.now;
    cover->alert->last_notified = tick.now;
    emit(rules_.rules[cover_rule], *cover, EventKind::Firing, tick.now, events);
  }
}

bool Engine::alerted_as_finding(const diagnose::Finding& f) const {
  for (const Rule& rule : rules_.rules)
    if (rule.local && rule.is_findings_rule() &&
        rank_of(f.severity) >= rank_of(static_cast<diagnose::Severity>(*rule.findings_min_severity)))
      return true;
  return false;
}

Engine::Series* Engine::covering_alert(const diagnose::Finding& f, std::size_t& rule_index) {
  for (std::size_t r = 0; r < rules_.rules.size(); ++r) {
    const Rule& rule = rules_.rules[r];
    if (!rule.local || std::find(rule.covers.begin(), rule.covers.end(), f.kind) == rule.covers.end()) continue;
    for (unsigned g : f.gpus) {
      auto it = state_[r].series.find(SeriesKey{static_cast<int>(g), {}, {}});
      if (it != state_[r].series.end() && it->second.alert) {
        rule_index = r;
        return &it->second;
      }
    }
  }
  return nullptr;
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
        auto gpus = a.labels.find("gpus");
        key.gpus = gpus != a.labels.end() ? gpus->second : std::to_string(*a.gpu);
        if (gpus != a.labels.end()) {  // the lowest GPU, first in the label
          int lowest = 0;
          const char* text = gpus->second.data();
          if (std::from_chars(text, text + gpus->second.size(), lowest).ec != std::errc()) continue;
          key.gpu = lowest;
        }
      }
      Series& s = series(r, key);
      s.alert = a;
      s.restored = a.state == AlertState::Pending;
      s.held_since.reset();
      if (a.gpu)
        if (auto uuid = a.labels.find("uuid"); uuid != a.labels.end()) uuids_.emplace(*a.gpu, uuid->second);
      break;
    }
  }
}

}  // namespace gpuwatch::alerts
