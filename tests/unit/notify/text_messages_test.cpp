#include "notify/text_messages.hpp"

#include <gtest/gtest.h>

#include "notify/message_text.hpp"
#include "unit/notify/notify_fixture.hpp"

namespace gpuwatch::notify {
namespace {

using alerts::EventKind;
using alerts::Severity;
using testing::make_event;

TEST(NotifyTextMessages, NtfyPriorityAndTagsFollowSeverity) {
  auto critical = ntfy_message(Group{"node-1", {make_event(EventKind::Firing, "GpuLost", Severity::Critical, 2)}});
  EXPECT_EQ(critical.priority, 5);
  EXPECT_EQ(critical.tags, (std::vector<std::string>{"rotating_light", "node-1"}));
  EXPECT_EQ(critical.title, "[FIRING:1] GpuLost on node-1");
  EXPECT_NE(critical.body.find("critical GpuLost on GPU 2: GpuLost on GPU 2"), std::string::npos) << critical.body;
  auto warning = ntfy_message(Group{"", {make_event(EventKind::Repeat, "GpuHungJob", Severity::Warning, 1)}});
  EXPECT_EQ(warning.priority, 4);
  EXPECT_EQ(warning.tags, (std::vector<std::string>{"warning"}));
  EXPECT_NE(warning.body.find("still firing since"), std::string::npos);
  auto resolved = ntfy_message(Group{"n", {make_event(EventKind::Resolved, "GpuLost", Severity::Critical, 2, "n")}});
  EXPECT_EQ(resolved.priority, 2);
  EXPECT_EQ(resolved.tags.front(), "white_check_mark");
  EXPECT_EQ(resolved.title, "[RESOLVED] GpuLost on n");
}

TEST(NotifyTextMessages, EmailIsRfc5322WithCrlfAndNoHeaderInjection) {
  Channel c;
  c.type = ChannelType::Email;
  c.from = "gpuwatch@example.com";
  c.to = {"a@example.com", "b@example.com"};
  auto event = make_event(EventKind::Firing, "GpuTemperatureHigh", Severity::Critical, 3, "evil\r\nBcc: x@evil.com");
  const auto message = email_message(c, Group{"evil\r\nBcc: x@evil.com", {event}}, testing::at_s(testing::kT0), "42");
  const std::string& text = message.text;
  const auto blank = text.find("\r\n\r\n");
  ASSERT_NE(blank, std::string::npos);
  const std::string headers = text.substr(0, blank + 2);
  EXPECT_NE(headers.find("From: gpuwatch <gpuwatch@example.com>\r\n"), std::string::npos) << headers;
  EXPECT_NE(headers.find("To: a@example.com, b@example.com\r\n"), std::string::npos);
  EXPECT_NE(headers.find("Date: Thu, 28 May 2026 20:26:40 +0000\r\n"), std::string::npos) << headers;
  EXPECT_NE(headers.find("Message-ID: <gpuwatch.42."), std::string::npos);
  EXPECT_NE(headers.find("@example.com>\r\n"), std::string::npos);
  EXPECT_NE(headers.find("Content-Type: text/plain; charset=utf-8\r\n"), std::string::npos);
  // The host's CR/LF shown visibly on the subject's one line (issue 31), never a header of its own.
  EXPECT_NE(headers.find("Subject: [FIRING:1] GpuTemperatureHigh on evil\\r\\nBcc: x@evil.com\r\n"), std::string::npos) << headers;
  EXPECT_EQ(headers.find("\r\nBcc:"), std::string::npos) << "a header was injected";
  // Every line ends in CRLF, none in a bare LF.
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') ASSERT_TRUE(i > 0 && text[i - 1] == '\r') << "bare LF at " << i;
  }
  const std::string body = text.substr(blank + 4);
  EXPECT_NE(body.find("- critical GpuTemperatureHigh on GPU 3"), std::string::npos) << body;
  EXPECT_NE(body.find("  uuid: GPU-00000003"), std::string::npos);
}

TEST(NotifyTextMessages, DesktopUrgency) {
  EXPECT_EQ(desktop_message(Group{"n", {make_event(EventKind::Firing, "GpuLost", Severity::Critical, 0)}}).urgency, "critical");
  EXPECT_EQ(desktop_message(Group{"n", {make_event(EventKind::Firing, "GpuIdle", Severity::Info, 0)}}).urgency, "normal");
  EXPECT_EQ(desktop_message(Group{"n", {make_event(EventKind::Resolved, "GpuLost", Severity::Critical, 0)}}).urgency, "low");
}

TEST(NotifyTextMessages, TimesAndTruncation) {
  EXPECT_EQ(rfc3339(testing::at_s(testing::kT0) + std::chrono::milliseconds(123)), "2026-05-28T20:26:40.123Z");
  EXPECT_EQ(human_duration(std::chrono::seconds(370)), "6m 10s");
  EXPECT_EQ(human_duration(std::chrono::seconds(7380)), "2h 3m");
  EXPECT_EQ(human_duration(std::chrono::seconds(45)), "45s");
  EXPECT_EQ(truncate_utf8("abcdef", 10), "abcdef");
  EXPECT_EQ(truncate_utf8("abcdef", 5), "ab…");
  EXPECT_EQ(truncate_utf8("ab°°°", 6), "ab…");  // never cuts inside the 2-byte '°'
}

}  // namespace
}  // namespace gpuwatch::notify

namespace gpuwatch::notify {
namespace text_messages_encoding_test {  // issue 31: CR/LF in a value never start a line

TEST(NotifyTextEncoding, NtfyAndEmailKeepEveryValueOnItsLine) {
  auto event = testing::make_event(alerts::EventKind::Firing, "GpuTemperatureHigh", alerts::Severity::Critical, 3);
  event.alert.annotations["summary"] = "hot on python\r\nBcc: victim@example.com\nFORGED LINE \x1b[2J";
  event.alert.labels["uuid"] = "GPU-1\r\nX-Evil: 1";
  const Group group{"node-1\r\nX-Host: evil", {event}};

  const auto ntfy = ntfy_message(group);
  EXPECT_EQ(ntfy.body.find('\r'), std::string::npos);
  EXPECT_EQ(ntfy.body.find('\n'), std::string::npos) << "one event, one line: " << ntfy.body;
  EXPECT_NE(ntfy.body.find("python\\r\\nBcc"), std::string::npos) << ntfy.body;
  EXPECT_EQ(ntfy.title.find('\n'), std::string::npos);
  for (const auto& tag : ntfy.tags) EXPECT_EQ(tag.find_first_of("\r\n"), std::string::npos);

  Channel channel;
  channel.from = "gpuwatch@example.com";
  channel.to = {"ops@example.com"};
  const auto email = email_message(channel, group, testing::at_s(testing::kT0), "7");
  EXPECT_EQ(email.subject.find_first_of("\r\n"), std::string::npos);
  // No line of the message starts with what a value carried.
  for (const char* forged : {"\r\nBcc:", "\r\nX-Evil:", "\r\nX-Host:", "\r\nFORGED"}) {
    EXPECT_EQ(email.text.find(forged), std::string::npos) << forged;
  }
  EXPECT_EQ(email.text.find('\x1b'), std::string::npos);
  // Every CR is the start of a CRLF line end.
  for (std::size_t i = 0; i < email.text.size(); ++i) {
    if (email.text[i] == '\r') EXPECT_EQ(email.text[i + 1], '\n');
    if (email.text[i] == '\n') EXPECT_EQ(email.text[i - 1], '\r');
  }
}

}  // namespace text_messages_encoding_test
}  // namespace gpuwatch::notify
