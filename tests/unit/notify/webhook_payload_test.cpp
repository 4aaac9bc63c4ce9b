#include "notify/webhook_payload.hpp"

#include <gtest/gtest.h>

#include "unit/notify/notify_fixture.hpp"

namespace gpuwatch::notify {
namespace {

using alerts::EventKind;
using alerts::Severity;
using testing::make_event;

Channel hook() {
  Channel c;
  c.name = "ops-hook";
  c.type = ChannelType::Webhook;
  c.url = "http://127.0.0.1:9/hook";
  c.external_url = "http://node-1:9835/";
  return c;
}

TEST(NotifyWebhookPayload, HasEveryKeyOfAlertmanagersVersion4) {
  Group group{"node-1",
              {make_event(EventKind::Firing, "GpuTemperatureHigh", Severity::Critical, 3),
               make_event(EventKind::Resolved, "GpuHungJob", Severity::Warning, 5)}};
  const auto json = webhook_payload(hook(), group);
  for (const char* key : {"receiver", "status", "alerts", "groupLabels", "commonLabels", "commonAnnotations", "externalURL",
                          "version", "groupKey", "truncatedAlerts"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  EXPECT_EQ(json["version"], "4");
  EXPECT_EQ(json["receiver"], "ops-hook");
  EXPECT_EQ(json["status"], "firing");  // one still fires
  EXPECT_EQ(json["externalURL"], "http://node-1:9835/");
  EXPECT_EQ(json["groupLabels"], (nlohmann::json{{"host", "node-1"}}));
  EXPECT_EQ(json["groupKey"], "{}:{host=\"node-1\"}");
  EXPECT_EQ(json["truncatedAlerts"], 0);
  // Common labels: only those equal in every alert (host), not alertname, gpu or severity.
  EXPECT_EQ(json["commonLabels"], (nlohmann::json{{"host", "node-1"}}));
  EXPECT_EQ(json["commonAnnotations"], (nlohmann::json{{"runbook", "docs/alerts.md"}}));
  ASSERT_EQ(json["alerts"].size(), 2u);
  const auto& firing = json["alerts"][0];
  for (const char* key : {"status", "labels", "annotations", "startsAt", "endsAt", "generatorURL", "fingerprint"}) {
    EXPECT_TRUE(firing.contains(key)) << key;
  }
  EXPECT_EQ(firing["status"], "firing");
  EXPECT_EQ(firing["labels"]["alertname"], "GpuTemperatureHigh");
  EXPECT_EQ(firing["labels"]["gpu"], "3");
  EXPECT_EQ(firing["startsAt"], "2026-05-28T20:31:40.000Z");  // fired_at = kT0 + 300 s
  EXPECT_EQ(firing["endsAt"], "0001-01-01T00:00:00Z");
  EXPECT_EQ(firing["fingerprint"], group.events[0].alert.fingerprint());
  const auto& resolved = json["alerts"][1];
  EXPECT_EQ(resolved["status"], "resolved");
  EXPECT_EQ(resolved["endsAt"], "2026-05-28T20:36:40.000Z");
}

TEST(NotifyWebhookPayload, AllResolvedAndTruncated) {
  Group group{"node-2", {}};
  for (unsigned gpu = 0; gpu < 5; ++gpu) group.events.push_back(make_event(EventKind::Resolved, "GpuLost", Severity::Critical, gpu, "node-2"));
  const auto json = webhook_payload(hook(), group, 3);
  EXPECT_EQ(json["status"], "resolved");
  EXPECT_EQ(json["alerts"].size(), 3u);
  EXPECT_EQ(json["truncatedAlerts"], 2);
  EXPECT_EQ(json["commonLabels"]["alertname"], "GpuLost");
  EXPECT_EQ(json["commonLabels"]["severity"], "critical");
  EXPECT_FALSE(json["commonLabels"].contains("gpu"));
}

TEST(NotifyWebhookPayload, AlertmanagerApiAlertsEndAfterFourResendIntervalsOrAtResolution) {
  auto firing = make_event(EventKind::Firing, "GpuTemperatureHigh", Severity::Critical, 3).alert;
  auto resolved = make_event(EventKind::Resolved, "GpuHungJob", Severity::Warning, 1).alert;
  const auto now = testing::at_s(testing::kT0 + 1000);
  const auto json = alertmanager_alerts({firing, resolved}, now, std::chrono::seconds(60), "http://node-1:9835/");
  ASSERT_TRUE(json.is_array());
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0]["labels"]["alertname"], "GpuTemperatureHigh");
  EXPECT_EQ(json[0]["startsAt"], "2026-05-28T20:31:40.000Z");
  EXPECT_EQ(json[0]["endsAt"], "2026-05-28T20:47:20.000Z");  // now (kT0+1000) + 240 s
  EXPECT_EQ(json[0]["generatorURL"], "http://node-1:9835/");
  EXPECT_EQ(json[1]["endsAt"], "2026-05-28T20:36:40.000Z");  // resolved_at
  EXPECT_FALSE(json[0].contains("status"));                  // not part of postableAlert
  const auto no_link = alertmanager_alerts({firing}, now, std::chrono::seconds(60), "");
  EXPECT_FALSE(no_link[0].contains("generatorURL"));
}

}  // namespace
}  // namespace gpuwatch::notify
