#include "notify/chat_payloads.hpp"

#include "notify/message_text.hpp"

namespace gpuwatch::notify {
namespace {

constexpr std::uint32_t kRed = 0xD32F2F, kAmber = 0xF9A825, kBlue = 0x1976D2, kGreen = 0x2E7D32;

std::uint32_t event_colour(const alerts::AlertEvent& event) {
  if (event.kind == alerts::EventKind::Resolved) return kGreen;
  switch (event.alert.severity) {
    case alerts::Severity::Critical: return kRed;
    case alerts::Severity::Warning: return kAmber;
    case alerts::Severity::Info: return kBlue;
  }
  return kAmber;
}

std::string footer(const Channel& channel, const Group& group, core::TextSink sink) {
  std::string text = "gpuwatch" + (group.host.empty() ? std::string() : " on " + core::encode_for(sink, group.host));
  if (!channel.external_url.empty()) text += " · " + core::encode_for(sink, channel.external_url);
  return text;
}

// Each field in the sink its platform renders it with (issue 31): Slack's mrkdwn fields and its
// notification text parse <!channel> and <url|label>; its header is plain_text. Discord's
// content, titles, descriptions and field values are Markdown, its footer plain. Teams' TextBlock
// and FactSet text is Markdown.
constexpr auto kSlack = core::TextSink::SlackMrkdwn;
constexpr auto kMarkdown = core::TextSink::Markdown;
constexpr auto kPlain = core::TextSink::PlainLine;

}  // namespace

std::uint32_t group_colour(const Group& group) {
  std::uint32_t colour = kGreen;
  int rank = -1;
  for (const auto& event : group.events) {
    if (event.kind == alerts::EventKind::Resolved) continue;
    if (static_cast<int>(event.alert.severity) > rank) {
      rank = static_cast<int>(event.alert.severity);
      colour = event_colour(event);
    }
  }
  return colour;
}

nlohmann::json slack_payload(const Channel& channel, const Group& group) {
  const std::string title = group_title(group, kSlack);
  return {
      {"text", truncate_utf8(title + "\n" + event_lines(group, kSlack, 20), 3000)},  // notifications and fallbacks
      {"blocks",
       {
           {{"type", "header"},
            {"text", {{"type", "plain_text"}, {"text", truncate_utf8(group_title(group, kPlain), 150)}, {"emoji", true}}}},
           {{"type", "section"}, {"text", {{"type", "mrkdwn"}, {"text", truncate_utf8(event_lines(group, kSlack, 20, "• "), 3000)}}}},
           {{"type", "context"}, {"elements", {{{"type", "mrkdwn"}, {"text", truncate_utf8(footer(channel, group, kSlack), 3000)}}}}},
       }},
  };
}

nlohmann::json discord_payload(const Channel& channel, const Group& group) {
  nlohmann::json embeds = nlohmann::json::array();
  for (const auto& event : group.events) {
    if (embeds.size() == 10) break;  // Discord's limit; the content line counts them all
    const auto& alert = event.alert;
    nlohmann::json fields = nlohmann::json::array();
    fields.push_back({{"name", "Severity"}, {"value", alerts::to_string(alert.severity)}, {"inline", true}});
    fields.push_back({{"name", "Target"}, {"value", alert_target(alert)}, {"inline", true}});
    if (auto uuid = alert.labels.find("uuid"); uuid != alert.labels.end()) {
      fields.push_back({{"name", "UUID"}, {"value", truncate_utf8(core::encode_for(kMarkdown, uuid->second), 1024)}, {"inline", false}});
    }
    nlohmann::json embed = {
        {"title", truncate_utf8((event.kind == alerts::EventKind::Resolved ? "Resolved: " : "") +
                                    core::encode_for(kMarkdown, alert.rule), 256)},
        {"description", truncate_utf8(event_line(event, kMarkdown), 4096)},
        {"color", event_colour(event)},
        {"timestamp", rfc3339(event.at)},
        {"fields", std::move(fields)},
        {"footer", {{"text", truncate_utf8(footer(channel, group, kPlain), 2048)}}},
    };
    if (!channel.external_url.empty()) embed["url"] = channel.external_url;
    embeds.push_back(std::move(embed));
  }
  return {
      {"username", "gpuwatch"},
      {"content", truncate_utf8(group_title(group, kMarkdown), 2000)},
      {"embeds", std::move(embeds)},
      {"allowed_mentions", {{"parse", nlohmann::json::array()}}},  // never ping from alert text
  };
}

nlohmann::json teams_payload(const Channel& channel, const Group& group) {
  nlohmann::json body = nlohmann::json::array();
  const bool firing = any_firing(group);
  body.push_back({{"type", "TextBlock"},
                  {"text", group_title(group, kMarkdown)},
                  {"weight", "Bolder"},
                  {"size", "Medium"},
                  {"wrap", true},
                  {"color", firing ? (highest_severity(group) == alerts::Severity::Critical ? "Attention" : "Warning") : "Good"}});
  nlohmann::json facts = nlohmann::json::array();
  for (const auto& event : group.events) {
    if (facts.size() == 20) break;
    facts.push_back({{"title", core::encode_for(kMarkdown, event.alert.rule) + " (" + alert_target(event.alert) + ")"},
                     {"value", event.kind == alerts::EventKind::Resolved ? std::string("resolved")
                                                                          : std::string(alerts::to_string(event.alert.severity)) +
                                                                                ": " + alert_summary(event.alert, kMarkdown)}});
  }
  body.push_back({{"type", "FactSet"}, {"facts", std::move(facts)}});
  body.push_back({{"type", "TextBlock"}, {"text", footer(channel, group, kMarkdown)}, {"isSubtle", true}, {"size", "Small"}, {"wrap", true}});
  nlohmann::json card = {
      {"$schema", "http://adaptivecards.io/schemas/adaptive-card.json"},
      {"type", "AdaptiveCard"},
      {"version", "1.4"},
      {"body", std::move(body)},
      {"msteams", {{"width", "Full"}}},
  };
  if (!channel.external_url.empty()) {
    card["actions"] = {{{"type", "Action.OpenUrl"}, {"title", "Open the dashboard"}, {"url", channel.external_url}}};
  }
  return {
      {"type", "message"},
      {"summary", truncate_utf8(group_title(group, kPlain), 150)},
      {"attachments",
       {{{"contentType", "application/vnd.microsoft.card.adaptive"}, {"contentUrl", nullptr}, {"content", std::move(card)}}}},
  };
}

}  // namespace gpuwatch::notify
