#include "notify/channel.hpp"

#include <gtest/gtest.h>

namespace gpuwatch::notify {
namespace {

TEST(NotifyChannel, RedactUrlKeepsSchemeAndHostOnly) {
  EXPECT_EQ(redact_url("https://hooks.slack.com/services/T000/B000/XXXXSECRET"), "https://hooks.slack.com/…");
  EXPECT_EQ(redact_url("http://user:pw@127.0.0.1:9093/api?token=abc"), "http://127.0.0.1:9093/…");
  EXPECT_EQ(redact_url("http://127.0.0.1:9093"), "http://127.0.0.1:9093");
  EXPECT_EQ(redact_url("http://127.0.0.1:9093/"), "http://127.0.0.1:9093");
  EXPECT_EQ(redact_url("not a url"), "…");
  EXPECT_EQ(redact_url(""), "");
}

TEST(NotifyChannel, RedactScrubsEverySecretFromText) {
  Channel c;
  c.type = ChannelType::Ntfy;
  c.url = "https://ntfy.example/topic-SECRETTOPIC";
  c.token = "tk_SUPERSECRETTOKEN";
  c.password = "hunter2hunter2";
  c.headers = {{"X-Api-Key", "KEY-1234567"}};
  const std::string text = "POST https://ntfy.example/topic-SECRETTOPIC failed with token tk_SUPERSECRETTOKEN, "
                           "password hunter2hunter2, key KEY-1234567, path /topic-SECRETTOPIC";
  const std::string out = redact(text, c);
  for (const char* secret : {"SECRETTOPIC", "SUPERSECRETTOKEN", "hunter2", "KEY-1234567"}) {
    EXPECT_EQ(out.find(secret), std::string::npos) << secret << " in " << out;
  }
  EXPECT_NE(out.find("https://ntfy.example/…"), std::string::npos) << out;
}

TEST(NotifyChannel, DescribeNeverShowsTheSecretPath) {
  Channel c;
  c.name = "ops";
  c.type = ChannelType::Slack;
  c.url = "https://hooks.slack.com/services/T0/B0/SECRET";
  EXPECT_EQ(describe(c), "ops (slack, https://hooks.slack.com/…)");
  Channel e;
  e.name = "exec";
  e.type = ChannelType::Exec;
  e.command = "curl -H 'token: SECRET' x";
  EXPECT_EQ(describe(e).find("SECRET"), std::string::npos);
}

TEST(NotifyChannel, TypeNamesRoundTrip) {
  for (auto type : {ChannelType::Webhook, ChannelType::Slack, ChannelType::Discord, ChannelType::Teams, ChannelType::Ntfy,
                    ChannelType::Alertmanager, ChannelType::Email, ChannelType::Desktop, ChannelType::Exec}) {
    EXPECT_EQ(channel_type_from_string(to_string(type)), type);
  }
  EXPECT_FALSE(channel_type_from_string("pagerduty"));
}

}  // namespace
}  // namespace gpuwatch::notify
