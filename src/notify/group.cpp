#include "notify/group.hpp"

#include <algorithm>

#include "alerts/alert_json.hpp"

namespace gpuwatch::notify {

std::vector<Group> group_by_host(const std::vector<alerts::AlertEvent>& events) {
  std::vector<Group> groups;
  for (const auto& event : events) {
    auto it = event.alert.labels.find("host");
    const std::string host = it == event.alert.labels.end() ? std::string() : it->second;
    auto group = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.host == host; });
    if (group == groups.end()) {
      groups.push_back(Group{host, {}});
      group = groups.end() - 1;
    }
    group->events.push_back(event);
  }
  return groups;
}

Group filter_for(const Channel& channel, const Group& group) {
  Group out{group.host, {}};
  for (const auto& event : group.events) {
    if (event.alert.severity < channel.min_severity) continue;
    if (event.kind == alerts::EventKind::Resolved && !channel.send_resolved) continue;
    if (event.kind == alerts::EventKind::Repeat && !channel.send_repeat) continue;
    out.events.push_back(event);
  }
  return out;
}

bool any_firing(const Group& group) {
  return std::any_of(group.events.begin(), group.events.end(),
                     [](const alerts::AlertEvent& e) { return e.kind != alerts::EventKind::Resolved; });
}

alerts::Severity highest_severity(const Group& group) {
  alerts::Severity out = alerts::Severity::Info;
  for (const auto& event : group.events) out = std::max(out, event.alert.severity);
  return out;
}

nlohmann::json group_to_json(const Group& group) {
  nlohmann::json events = nlohmann::json::array();
  for (const auto& event : group.events) events.push_back(alerts::to_json(event));
  return {{"host", group.host}, {"events", std::move(events)}};
}

core::Result<Group> group_from_json(const nlohmann::json& json) {
  try {
    Group group;
    group.host = json.at("host").get<std::string>();
    for (const auto& item : json.at("events")) {
      alerts::AlertEvent event;
      const std::string kind = item.at("event").get<std::string>();
      if (kind == "firing") event.kind = alerts::EventKind::Firing;
      else if (kind == "repeat") event.kind = alerts::EventKind::Repeat;
      else if (kind == "resolved") event.kind = alerts::EventKind::Resolved;
      else return core::make_error("queued message: unknown event '" + kind + "'");
      event.at = alerts::from_unix_seconds(item.at("at").get<double>());
      auto alert = alerts::alert_from_json(item.at("alert"));
      if (!alert) return core::make_error("queued message: " + alert.error().message);
      event.alert = std::move(*alert);
      group.events.push_back(std::move(event));
    }
    return group;
  } catch (const nlohmann::json::exception& e) {
    return core::make_error(std::string("queued message: ") + e.what());
  }
}

}  // namespace gpuwatch::notify
