#include "notify/job_message.hpp"

namespace gpuwatch::notify {

Group job_group(const std::string& job_name, const std::string& text, bool failed, const std::string& host,
                alerts::TimePoint now) {
  alerts::AlertEvent event;
  event.kind = alerts::EventKind::Firing;
  event.at = now;
  auto& alert = event.alert;
  alert.rule = failed ? "GpuwatchJobFailed" : "GpuwatchJobFinished";
  alert.severity = failed ? alerts::Severity::Warning : alerts::Severity::Info;
  alert.state = alerts::AlertState::Firing;
  alert.labels = {{"alertname", alert.rule}, {"severity", failed ? "warning" : "info"}, {"host", host}, {"job", job_name}};
  alert.annotations = {{"summary", text}, {"description", "Sent by `gpuwatch run` when its command ended."}};
  alert.active_since = now;
  alert.fired_at = now;
  return Group{host, {event}};
}

}  // namespace gpuwatch::notify
