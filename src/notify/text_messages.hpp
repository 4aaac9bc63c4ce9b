#pragma once
// The plain-text channels' messages (pure functions):
// - ntfy: the body is the message; Title, Priority (1-5) and Tags (emoji short codes) go in
//   headers (docs.ntfy.sh/publish: "Message title", "Message priority", "Tags & emojis").
// - email: an RFC 5322 message (From, To, Subject, Date, Message-ID, MIME-Version, Content-Type:
//   text/plain; charset=utf-8), CRLF line ends, header values on one line.
// - desktop: notify-send's urgency (low, normal, critical), summary and body.
#include <string>
#include <vector>

#include "notify/channel.hpp"
#include "notify/group.hpp"

namespace gpuwatch::notify {

struct NtfyMessage {
  std::string title;
  int priority = 3;          // 5 critical, 4 warning, 3 info, 2 resolved
  std::vector<std::string> tags;  // "rotating_light", "warning", "information_source", "white_check_mark"
  std::string body;
};
NtfyMessage ntfy_message(const Group& group);

struct EmailMessage {
  std::string subject;
  std::string text;          // the whole message: headers, blank line, body (CRLF)
};
// NOW dates the message; MESSAGE_ID_SEED (e.g. the queue row id) makes the Message-ID unique.
EmailMessage email_message(const Channel& channel, const Group& group, alerts::TimePoint now,
                           const std::string& message_id_seed);

struct DesktopMessage {
  std::string urgency;       // notify-send -u: low, normal, critical
  std::string summary;
  std::string body;
};
DesktopMessage desktop_message(const Group& group);

// TEXT on one line: CR and LF (and other control characters) become spaces (header injection).
std::string one_line(const std::string& text);

}  // namespace gpuwatch::notify
