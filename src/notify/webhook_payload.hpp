#pragma once
// Alertmanager's JSON forms (pure functions):
// - the webhook v4 payload that Alertmanager POSTs to its webhook receivers, which the `webhook`
//   and `exec` channels send (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config);
// - the alerts array that Prometheus POSTs to Alertmanager's /api/v2/alerts (the `alertmanager`
//   channel; https://github.com/prometheus/alertmanager/blob/main/api/v2/openapi.yaml, postableAlerts).
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alerts/alert.hpp"
#include "notify/channel.hpp"
#include "notify/group.hpp"

namespace gpuwatch::notify {

// {receiver, status, alerts[{status, labels, annotations, startsAt, endsAt, generatorURL,
// fingerprint}], groupLabels {host}, commonLabels, commonAnnotations, externalURL, version "4",
// groupKey, truncatedAlerts}. An alert that has not resolved ends at "0001-01-01T00:00:00Z", as
// Alertmanager writes it. At most MAX_ALERTS alerts (0: all); the rest are counted in truncatedAlerts.
nlohmann::json webhook_payload(const Channel& channel, const Group& group, std::size_t max_alerts = 0);

// Alertmanager's /api/v2/alerts body for ALERTS (as Prometheus sends it): firing ones end at
// NOW + 4 x RESEND_INTERVAL (Alertmanager resolves them itself if gpuwatch goes away), resolved
// ones at their resolution time. GENERATOR_URL links back (the dashboard; "" for none).
nlohmann::json alertmanager_alerts(const std::vector<alerts::Alert>& alerts, alerts::TimePoint now,
                                   std::chrono::seconds resend_interval, const std::string& generator_url);

// Alertmanager's "zero" time for an alert with no end: "0001-01-01T00:00:00Z".
inline constexpr const char* kZeroTime = "0001-01-01T00:00:00Z";

}  // namespace gpuwatch::notify
