#include "notify/webhook_payload.hpp"

#include "notify/message_text.hpp"

namespace gpuwatch::notify {
namespace {

// Labels (or annotations) shared, with the same value, by every alert of the group.
alerts::Labels common(const Group& group, bool annotations) {
  if (group.events.empty()) return {};
  auto pick = [&](const alerts::AlertEvent& e) -> const alerts::Labels& {
    return annotations ? e.alert.annotations : e.alert.labels;
  };
  alerts::Labels out = pick(group.events.front());
  for (const auto& event : group.events) {
    const auto& these = pick(event);
    for (auto it = out.begin(); it != out.end();) {
      auto found = these.find(it->first);
      it = (found == these.end() || found->second != it->second) ? out.erase(it) : std::next(it);
    }
  }
  return out;
}

alerts::TimePoint starts_at(const alerts::Alert& alert) { return alert.fired_at.value_or(alert.active_since); }

}  // namespace

nlohmann::json webhook_payload(const Channel& channel, const Group& group, std::size_t max_alerts) {
  nlohmann::json list = nlohmann::json::array();
  std::size_t truncated = 0;
  for (const auto& event : group.events) {
    if (max_alerts != 0 && list.size() == max_alerts) {
      ++truncated;
      continue;
    }
    const auto& alert = event.alert;
    const bool resolved = event.kind == alerts::EventKind::Resolved;
    list.push_back({
        {"status", resolved ? "resolved" : "firing"},
        {"labels", alert.labels},
        {"annotations", alert.annotations},
        {"startsAt", rfc3339(starts_at(alert))},
        {"endsAt", resolved ? rfc3339(alert.resolved_at.value_or(event.at)) : std::string(kZeroTime)},
        {"generatorURL", channel.external_url},
        {"fingerprint", alert.fingerprint()},
    });
  }
  const alerts::Labels group_labels = {{"host", group.host}};
  return {
      {"version", "4"},
      {"groupKey", "{}:{host=\"" + group.host + "\"}"},
      {"truncatedAlerts", truncated},
      {"status", any_firing(group) ? "firing" : "resolved"},
      {"receiver", channel.name},
      {"groupLabels", group_labels},
      {"commonLabels", common(group, false)},
      {"commonAnnotations", common(group, true)},
      {"externalURL", channel.external_url},
      {"alerts", std::move(list)},
  };
}

nlohmann::json alertmanager_alerts(const std::vector<alerts::Alert>& alerts, alerts::TimePoint now,
                                   std::chrono::seconds resend_interval, const std::string& generator_url) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& alert : alerts) {
    const bool resolved = alert.state == alerts::AlertState::Resolved;
    nlohmann::json item = {
        {"labels", alert.labels},
        {"annotations", alert.annotations},
        {"startsAt", rfc3339(starts_at(alert))},
        {"endsAt", rfc3339(resolved ? alert.resolved_at.value_or(now) : now + 4 * resend_interval)},
    };
    if (!generator_url.empty()) item["generatorURL"] = generator_url;
    list.push_back(std::move(item));
  }
  return list;
}

}  // namespace gpuwatch::notify
