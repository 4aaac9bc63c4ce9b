#pragma once
// An alert and the events the engine emits for it: the values every alerts surface shares
// (the engine, the notification channels, the store, `gpuwatch alerts`, /api/v1/alerts,
// /metrics). Plain values, no I/O.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::alerts {

using TimePoint = std::chrono::system_clock::time_point;

enum class Severity : std::uint8_t { Info, Warning, Critical };
const char* to_string(Severity severity);  // "info", "warning", "critical"
std::optional<Severity> severity_from_string(std::string_view text);

// Pending: the condition holds, its `for:` has not run out. Firing: it has. Resolved: it fired
// and has cleared (the clear condition held, or the condition stopped, then keep_firing_for ran out).
enum class AlertState : std::uint8_t { Pending, Firing, Resolved };
const char* to_string(AlertState state);  // "pending", "firing", "resolved"
std::optional<AlertState> alert_state_from_string(std::string_view text);

// Label names, sorted. Every alert has alertname, severity and host; per-GPU alerts also gpu
// (the NVML index) and uuid; a rule's own labels are added.
using Labels = std::map<std::string, std::string>;

// An annotation in pieces, kept only when its template opts into raw text with `| raw`
// (docs/alerts.md#templates): `raw` pieces (the rule's own text and the `| raw` values) reach a
// chat as written; the others (every other value: a process name, a label) are encoded for the
// channel (core/sink_text.hpp). An annotation without `| raw` has no pieces: channels encode it whole.
struct TextSpan {
  std::string text;
  bool raw = false;
  bool operator==(const TextSpan&) const = default;
};
using AnnotationSpans = std::map<std::string, std::vector<TextSpan>>;

struct Alert {
  std::string rule;                 // the rule's alert name (labels["alertname"])
  Severity severity = Severity::Warning;
  AlertState state = AlertState::Pending;
  std::optional<unsigned> gpu;      // nullopt: a node alert (driver, sampler, GPU count)
  Labels labels;                    // identity: alertname, severity, host, gpu, uuid, rule labels
  Labels annotations;               // summary, description...: templates expanded
  AnnotationSpans raw_annotations;  // the annotations whose templates use `| raw`, in pieces
  std::optional<double> value;      // the condition's value at the latest evaluation (absent: none)
  TimePoint active_since{};         // the condition first held (pending from then)
  std::optional<TimePoint> fired_at;     // it became firing
  std::optional<TimePoint> resolved_at;  // it resolved
  std::optional<TimePoint> last_notified;  // the latest firing/repeat event the engine emitted

  // Stable identity over restarts: 16 hex digits of a hash of the labels (like Alertmanager's).
  std::string fingerprint() const;
};

// What the engine emits for the notification channels and the store, once per transition:
// Firing when the alert's `for:` runs out, Repeat every repeat interval while it fires,
// Resolved when it clears. Pending alerts emit nothing.
enum class EventKind : std::uint8_t { Firing, Repeat, Resolved };
const char* to_string(EventKind kind);  // "firing", "repeat", "resolved"

struct AlertEvent {
  EventKind kind = EventKind::Firing;
  TimePoint at{};
  Alert alert;  // the alert as of the event
};

}  // namespace gpuwatch::alerts
