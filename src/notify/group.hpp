#pragma once
// A group: the alert events of one batch (one engine tick) for one host, which becomes one
// message per channel. It is what the delivery queue stores (as JSON, channel-independent);
// each channel renders it at send time.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alerts/alert.hpp"
#include "core/result.hpp"
#include "notify/channel.hpp"

namespace gpuwatch::notify {

struct Group {
  std::string host;                         // the alerts' "host" label ("" when they carry none)
  std::vector<alerts::AlertEvent> events;   // in the order the engine emitted them
};

// Splits a batch by host, keeping each host's events in order; hosts in order of first event.
std::vector<Group> group_by_host(const std::vector<alerts::AlertEvent>& events);

// The events of GROUP that CHANNEL wants: at or above its severity, resolved and repeat events
// only when it sends them. Empty: nothing to send to that channel.
Group filter_for(const Channel& channel, const Group& group);

// Firing when any event is a firing or repeat event, resolved when all are resolved events.
bool any_firing(const Group& group);
// The highest severity among the group's events (Info when empty).
alerts::Severity highest_severity(const Group& group);

// The queue's form: {"host": ..., "events": [{"event", "at", "alert"}]} (alerts/alert_json).
nlohmann::json group_to_json(const Group& group);
core::Result<Group> group_from_json(const nlohmann::json& json);

}  // namespace gpuwatch::notify
