#pragma once
// The incoming-webhook JSON of the chat platforms (pure functions), each within the platform's
// documented limits:
// - Slack: {text, blocks: [header, section (mrkdwn), context]} (api.slack.com/messaging/webhooks;
//   header text <= 150 chars, section text <= 3000).
// - Discord: {username, content, embeds: [{title, description, color, timestamp, fields}]}
//   (discord.com/developers/docs/resources/webhook#execute-webhook; content <= 2000, <= 10 embeds,
//   title <= 256, description <= 4096, <= 25 fields). Colour by severity, green when resolved.
// - Teams: a message with one Adaptive Card attachment (the Workflows "post to a channel when a
//   webhook request is received" form, which incoming webhooks accept too).
#include <cstdint>
#include <nlohmann/json.hpp>

#include "notify/channel.hpp"
#include "notify/group.hpp"

namespace gpuwatch::notify {

nlohmann::json slack_payload(const Channel& channel, const Group& group);
nlohmann::json discord_payload(const Channel& channel, const Group& group);
nlohmann::json teams_payload(const Channel& channel, const Group& group);

// The colour of a group: red critical, amber warning, blue info, green when all resolved (0xRRGGBB).
std::uint32_t group_colour(const Group& group);

}  // namespace gpuwatch::notify
