#include "notify/text_messages.hpp"

#include "notify/message_text.hpp"

namespace gpuwatch::notify {

std::string one_line(const std::string& text) {
  std::string out = text;
  for (auto& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

namespace {
constexpr auto kLine = core::TextSink::PlainLine;  // ntfy, e-mail, desktop: one plain line per field (issue 31)
}  // namespace

NtfyMessage ntfy_message(const Group& group) {
  NtfyMessage message;
  message.title = one_line(group_title(group, kLine));
  message.body = event_lines(group, kLine, 20);
  if (!any_firing(group)) {
    message.priority = 2;
    message.tags = {"white_check_mark"};
  } else {
    switch (highest_severity(group)) {
      case alerts::Severity::Critical:
        message.priority = 5;
        message.tags = {"rotating_light"};
        break;
      case alerts::Severity::Warning:
        message.priority = 4;
        message.tags = {"warning"};
        break;
      case alerts::Severity::Info:
        message.priority = 3;
        message.tags = {"information_source"};
        break;
    }
  }
  if (!group.host.empty()) message.tags.push_back(core::plain_line(group.host));
  return message;
}

EmailMessage email_message(const Channel& channel, const Group& group, alerts::TimePoint now,
                           const std::string& message_id_seed) {
  EmailMessage message;
  message.subject = one_line(group_title(group, kLine));
  std::string to;
  for (const auto& address : channel.to) to += (to.empty() ? "" : ", ") + one_line(address);
  const auto at = channel.from.find('@');
  const std::string domain = at == std::string::npos ? "gpuwatch.invalid" : channel.from.substr(at + 1);
  std::string headers;
  headers += "From: gpuwatch <" + one_line(channel.from) + ">\r\n";
  headers += "To: " + to + "\r\n";
  headers += "Subject: " + message.subject + "\r\n";
  headers += "Date: " + rfc5322_date(now) + "\r\n";
  headers += "Message-ID: <gpuwatch." + one_line(message_id_seed) + "." +
             std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count()) + "@" +
             one_line(domain) + ">\r\n";
  headers += "MIME-Version: 1.0\r\n";
  headers += "Content-Type: text/plain; charset=utf-8\r\n";
  headers += "Content-Transfer-Encoding: 8bit\r\n";
  headers += "Auto-Submitted: auto-generated\r\n";
  std::string body = group_title(group, kLine) + "\n\n" + event_lines(group, kLine, 100, "- ") + "\n";
  for (const auto& event : group.events) {
    body += "\n" + core::plain_line(event.alert.rule) + " (" + alert_target(event.alert) + ", " +
            alerts::to_string(event.kind) + ")\n";
    // A label or annotation value on its own line: its CR/LF never start another (issue 31).
    for (const auto& [name, value] : event.alert.labels) body += "  " + core::plain_line(name) + ": " + core::plain_line(value) + "\n";
    for (const auto& [name, value] : event.alert.annotations)
      body += "  " + core::plain_line(name) + ": " + core::plain_line(value) + "\n";
  }
  if (!channel.external_url.empty()) body += "\n" + core::plain_line(channel.external_url) + "\n";
  body += "\n-- \ngpuwatch" + (group.host.empty() ? std::string() : " on " + core::plain_line(group.host)) + "\n";
  std::string crlf;
  for (char c : body) {
    if (c == '\n') crlf += "\r\n";
    else if (c != '\r') crlf += c;
  }
  message.text = headers + "\r\n" + crlf;
  return message;
}

DesktopMessage desktop_message(const Group& group) {
  DesktopMessage message;
  message.summary = group_title(group, kLine);
  message.body = event_lines(group, kLine, 8);
  if (!any_firing(group)) message.urgency = "low";
  else message.urgency = highest_severity(group) == alerts::Severity::Critical ? "critical" : "normal";
  return message;
}

}  // namespace gpuwatch::notify
