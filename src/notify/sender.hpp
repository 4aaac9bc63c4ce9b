#pragma once
// Renders a group for one channel and hands it to the receiver (HTTP, SMTP, a program): one
// attempt, bounded by the channel's timeout, aborted within about a second when CANCEL is set.
// Every text in the result is scrubbed of the channel's secrets.
#include <atomic>
#include <string>
#include <vector>

#include "notify/channel.hpp"
#include "notify/group.hpp"
#include "notify/send_result.hpp"

namespace gpuwatch::notify {

// MESSAGE_ID: a stable id of the message (the queue row), for email's Message-ID.
SendResult send_group(const Channel& channel, const Group& group, alerts::TimePoint now, const std::string& message_id,
                      const std::atomic<bool>* cancel);

// The alertmanager channel: POSTs ALERTS (firing, and resolved ones with their end) to
// CHANNEL.url + /api/v2/alerts.
SendResult send_alertmanager(const Channel& channel, const std::vector<alerts::Alert>& alerts, alerts::TimePoint now,
                             const std::atomic<bool>* cancel);

// The group `gpuwatch alerts test` sends: one info alert, GpuwatchTest, on this host.
Group test_group(alerts::TimePoint now);

// Sends the test group to CHANNEL and returns the receiver's answer (`gpuwatch alerts test`).
SendResult send_test(const Channel& channel);

// The alertmanager channel's endpoint: BASE + "/api/v2/alerts" (unless BASE already ends so).
std::string alertmanager_endpoint(const std::string& base_url);

// This machine's host name ("localhost" when it has none).
std::string host_name();

}  // namespace gpuwatch::notify
