#include "notify/chat_payloads.hpp"

#include <gtest/gtest.h>

#include "unit/notify/notify_fixture.hpp"

namespace gpuwatch::notify {
namespace {

using alerts::EventKind;
using alerts::Severity;
using testing::make_event;

Group mixed() {
  return Group{"node-1",
               {make_event(EventKind::Firing, "GpuTemperatureHigh", Severity::Critical, 3),
                make_event(EventKind::Resolved, "GpuHungJob", Severity::Warning, 5)}};
}

TEST(NotifyChatPayloads, SlackHasTextAndBlocksWithinLimits) {
  Channel c;
  c.type = ChannelType::Slack;
  const auto json = slack_payload(c, mixed());
  ASSERT_TRUE(json["text"].is_string());
  EXPECT_NE(json["text"].get<std::string>().find("GpuTemperatureHigh"), std::string::npos);
  ASSERT_EQ(json["blocks"].size(), 3u);
  EXPECT_EQ(json["blocks"][0]["type"], "header");
  EXPECT_EQ(json["blocks"][0]["text"]["type"], "plain_text");
  EXPECT_EQ(json["blocks"][0]["text"]["text"], "[FIRING:1, RESOLVED:1] GpuTemperatureHigh, GpuHungJob on node-1");
  EXPECT_EQ(json["blocks"][1]["type"], "section");
  EXPECT_EQ(json["blocks"][1]["text"]["type"], "mrkdwn");
  const std::string section = json["blocks"][1]["text"]["text"];
  EXPECT_NE(section.find("• critical GpuTemperatureHigh on GPU 3"), std::string::npos) << section;
  EXPECT_NE(section.find("• resolved GpuHungJob on GPU 5 (after 5m 0s)"), std::string::npos) << section;
  EXPECT_EQ(json["blocks"][2]["type"], "context");
  // A huge group stays within Slack's limits (header 150, section 3000 characters).
  Group big{"node-1", {}};
  for (int i = 0; i < 200; ++i) big.events.push_back(make_event(EventKind::Firing, "Rule" + std::to_string(i) + std::string(40, 'x'), Severity::Info, 0));
  const auto large = slack_payload(c, big);
  EXPECT_LE(large["blocks"][0]["text"]["text"].get<std::string>().size(), 150u);
  EXPECT_LE(large["blocks"][1]["text"]["text"].get<std::string>().size(), 3000u);
  EXPECT_NE(large["blocks"][1]["text"]["text"].get<std::string>().find("and 180 more"), std::string::npos);
}

TEST(NotifyChatPayloads, DiscordEmbedsColouredBySeverityAndGreenWhenResolved) {
  Channel c;
  c.type = ChannelType::Discord;
  const auto json = discord_payload(c, mixed());
  EXPECT_EQ(json["content"], "[FIRING:1, RESOLVED:1] GpuTemperatureHigh, GpuHungJob on node-1");
  ASSERT_EQ(json["embeds"].size(), 2u);
  EXPECT_EQ(json["embeds"][0]["color"], 0xD32F2F);  // critical: red
  EXPECT_EQ(json["embeds"][0]["title"], "GpuTemperatureHigh");
  EXPECT_EQ(json["embeds"][1]["color"], 0x2E7D32);  // resolved: green
  EXPECT_EQ(json["embeds"][1]["title"], "Resolved: GpuHungJob");
  EXPECT_EQ(json["embeds"][0]["timestamp"], "2026-05-28T20:36:40.000Z");
  EXPECT_TRUE(json["allowed_mentions"]["parse"].empty());
  Group many{"n", {}};
  for (unsigned i = 0; i < 12; ++i) many.events.push_back(make_event(EventKind::Firing, "GpuLost", Severity::Warning, i, "n"));
  const auto capped = discord_payload(c, many);
  EXPECT_EQ(capped["embeds"].size(), 10u);  // Discord's limit
  EXPECT_EQ(capped["embeds"][0]["color"], 0xF9A825);  // warning: amber
  EXPECT_EQ(group_colour(many), 0xF9A825u);
  EXPECT_EQ(group_colour(mixed()), 0xD32F2Fu);
}

TEST(NotifyChatPayloads, TeamsSendsOneAdaptiveCard) {
  Channel c;
  c.type = ChannelType::Teams;
  c.external_url = "http://node-1:9835/";
  const auto json = teams_payload(c, mixed());
  EXPECT_EQ(json["type"], "message");
  ASSERT_EQ(json["attachments"].size(), 1u);
  const auto& attachment = json["attachments"][0];
  EXPECT_EQ(attachment["contentType"], "application/vnd.microsoft.card.adaptive");
  const auto& card = attachment["content"];
  EXPECT_EQ(card["type"], "AdaptiveCard");
  EXPECT_EQ(card["version"], "1.4");
  EXPECT_EQ(card["body"][0]["type"], "TextBlock");
  EXPECT_EQ(card["body"][0]["color"], "Attention");
  EXPECT_EQ(card["body"][1]["type"], "FactSet");
  EXPECT_EQ(card["body"][1]["facts"].size(), 2u);
  EXPECT_EQ(card["body"][1]["facts"][1]["value"], "resolved");
  EXPECT_EQ(card["actions"][0]["url"], "http://node-1:9835/");
}

}  // namespace
}  // namespace gpuwatch::notify

namespace gpuwatch::notify {
namespace chat_payloads_encoding_test {  // issue 31: a process name is text in every chat

using alerts::EventKind;
using alerts::Severity;

const std::string kHostile = "<!channel> <!here|here> <https://evil.example|CLICK> [click](https://evil.example) "
                             "**bold** # head\nFORGED \x1b]52;c;aGVsbG8=\x07 & <script>";

Group hostile_group() {
  auto event = testing::make_event(EventKind::Firing, "GpuTemperatureHigh", Severity::Critical, 3);
  event.alert.annotations["summary"] = "hot on " + kHostile;
  event.alert.labels["uuid"] = kHostile;
  return Group{"node-1", {event}};
}

// Every string of a JSON document, recursively.
void strings_of(const nlohmann::json& j, std::vector<std::string>& out) {
  if (j.is_string()) out.push_back(j.get<std::string>());
  for (const auto& item : j) {
    if (j.is_structured()) strings_of(item, out);
  }
}

void expect_no_raw_control(const nlohmann::json& payload) {
  std::vector<std::string> texts;
  strings_of(payload, texts);
  for (const auto& t : texts) {
    for (char c : t) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n') << t;  // '\n': the tool's own lines
    EXPECT_EQ(t.find("\nFORGED"), std::string::npos) << t;
  }
}

TEST(NotifyChatEncoding, SlackEscapesMentionsAndLinksInMrkdwn) {
  const auto payload = slack_payload(Channel{}, hostile_group());
  for (const auto& text : {payload["text"].get<std::string>(), payload["blocks"][1]["text"]["text"].get<std::string>()}) {
    EXPECT_EQ(text.find("<!channel>"), std::string::npos) << text;
    EXPECT_EQ(text.find("<!here"), std::string::npos);
    EXPECT_EQ(text.find("<https://evil"), std::string::npos);
    EXPECT_EQ(text.find("<script>"), std::string::npos);
    EXPECT_NE(text.find("&lt;!channel&gt;"), std::string::npos) << text;
    EXPECT_NE(text.find("\\x1b]52"), std::string::npos);  // shown, not sent
  }
  expect_no_raw_control(payload);
}

TEST(NotifyChatEncoding, DiscordAndTeamsEscapeMarkdown) {
  const auto discord = discord_payload(Channel{}, hostile_group());
  const std::string description = discord["embeds"][0]["description"];
  EXPECT_EQ(description.find("[click]"), std::string::npos) << description;
  EXPECT_NE(description.find("\\[click\\](https://evil.example)"), std::string::npos) << description;
  EXPECT_NE(description.find("\\<https://evil.example\\|CLICK\\>"), std::string::npos) << description;
  EXPECT_NE(description.find("\\*\\*bold\\*\\*"), std::string::npos);
  const std::string uuid = discord["embeds"][0]["fields"][2]["value"];
  EXPECT_EQ(uuid.find("[click]"), std::string::npos) << uuid;
  expect_no_raw_control(discord);

  const auto teams = teams_payload(Channel{}, hostile_group());
  const std::string fact = teams["attachments"][0]["content"]["body"][1]["facts"][0]["value"];
  EXPECT_EQ(fact.find("[click]"), std::string::npos) << fact;
  EXPECT_EQ(fact.find(" <https://"), std::string::npos) << fact;  // only as "\<https://", no autolink
  EXPECT_NE(fact.find("\\<https://"), std::string::npos) << fact;
  expect_no_raw_control(teams);
}

TEST(NotifyChatEncoding, ARuleThatSaysRawKeepsItsOwnLinkButNotTheProcess) {
  auto group = hostile_group();
  auto& alert = group.events[0].alert;
  alert.annotations["summary"] = "<https://runbook.example|runbook> for " + kHostile;
  alert.raw_annotations["summary"] = {{"<https://runbook.example|runbook> for ", true}, {kHostile, false}};
  const std::string text = slack_payload(Channel{}, group)["blocks"][1]["text"]["text"];
  EXPECT_NE(text.find("<https://runbook.example|runbook> for &lt;!channel&gt;"), std::string::npos) << text;
  EXPECT_EQ(text.find("<!channel>"), std::string::npos);
}

}  // namespace chat_payloads_encoding_test
}  // namespace gpuwatch::notify
