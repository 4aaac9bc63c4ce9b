#include "notify/channel_config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/exit_codes.hpp"
#include "unit/store/store_fixture.hpp"

namespace gpuwatch::notify {
namespace channel_config_test {  // this test file's helpers (unity builds: no clash with another file's)

using store::testing::TempDir;

std::string error_of(const core::Result<std::vector<Channel>>& result) {
  return result ? std::string("(no error)") : result.error().message;
}

TEST(NotifyChannelConfig, SpecsOfEveryUrlType) {
  for (const char* type : {"webhook", "slack", "discord", "teams", "ntfy", "alertmanager"}) {
    auto channel = parse_channel_spec(std::string(type) + "=http://127.0.0.1:9/hook");
    ASSERT_TRUE(channel) << type << ": " << channel.error().message;
    EXPECT_EQ(to_string(channel->type), std::string(type));
    EXPECT_EQ(channel->name, type);
    EXPECT_EQ(channel->url, "http://127.0.0.1:9/hook");
  }
  auto exec = parse_channel_spec("exec=cat > /dev/null");
  ASSERT_TRUE(exec);
  EXPECT_EQ(exec->command, "cat > /dev/null");
}

TEST(NotifyChannelConfig, BadSpecsSayWhatIsWrongWithoutTheSecret) {
  auto bad_url = parse_channel_spec("slack=ftp://hooks.example/SECRET");
  ASSERT_FALSE(bad_url);
  EXPECT_EQ(bad_url.error().code, core::kExitUsage);
  EXPECT_NE(bad_url.error().message.find("not an http:// or https:// URL"), std::string::npos) << bad_url.error().message;
  EXPECT_EQ(bad_url.error().message.find("SECRET"), std::string::npos) << bad_url.error().message;

  auto unknown = parse_channel_spec("pagerduty=https://x");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown channel type 'pagerduty'"), std::string::npos);

  auto missing = parse_channel_spec("webhook=");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("url: missing"), std::string::npos) << missing.error().message;

  auto email = parse_channel_spec("email=ops");
  ASSERT_FALSE(email);
  EXPECT_NE(email.error().message.find("--notify-config"), std::string::npos);

  auto name_without_file = parse_channels({"oncall"}, "");
  ASSERT_FALSE(name_without_file);
  EXPECT_NE(error_of(name_without_file).find("no channel of that name"), std::string::npos);
}

TEST(NotifyChannelConfig, ConfigWithSecretsFromFileAndEnvironment) {
  TempDir dir;
  std::ofstream(dir.file("slack-url")) << "https://hooks.slack.com/services/T/B/FROMFILE\n";
  std::ofstream(dir.file("smtp-pass")) << "s3cret-pass\n";
  ::setenv("GPUWATCH_TEST_NTFY_TOKEN", "tk_fromenv", 1);
  const std::string yaml = R"(channels:
  ops-slack:
    type: slack
    url_file: slack-url
    severity: warning
    rate_limit: 5/30s
  oncall:
    type: email
    smtp_url: smtp://127.0.0.1:2525
    from: gpuwatch@example.com
    to: [a@example.com, b@example.com]
    username: gpuwatch
    password_file: smtp-pass
    timeout: 3s
  phone:
    type: ntfy
    url: https://ntfy.sh/gpus
    token_env: GPUWATCH_TEST_NTFY_TOKEN
    send_resolved: false
    repeat: false
)";
  auto channels = parse_channel_config(yaml, "n.yaml", dir.path());
  ASSERT_TRUE(channels) << channels.error().message;
  ASSERT_EQ(channels->size(), 3u);
  const auto& slack = (*channels)[0];
  EXPECT_EQ(slack.name, "ops-slack");
  EXPECT_EQ(slack.url, "https://hooks.slack.com/services/T/B/FROMFILE");  // trailing newline dropped
  EXPECT_EQ(slack.min_severity, alerts::Severity::Warning);
  EXPECT_EQ(slack.rate_limit.messages, 5);
  EXPECT_EQ(slack.rate_limit.per, std::chrono::seconds(30));
  const auto& mail = (*channels)[1];
  EXPECT_EQ(mail.password, "s3cret-pass");
  EXPECT_EQ(mail.to, (std::vector<std::string>{"a@example.com", "b@example.com"}));
  EXPECT_EQ(mail.smtp_tls, SmtpTls::StartTls);
  EXPECT_EQ(mail.timeout, std::chrono::seconds(3));
  const auto& ntfy = (*channels)[2];
  EXPECT_EQ(ntfy.token, "tk_fromenv");
  EXPECT_FALSE(ntfy.send_resolved);
  EXPECT_FALSE(ntfy.send_repeat);
  ::unsetenv("GPUWATCH_TEST_NTFY_TOKEN");
}

TEST(NotifyChannelConfig, ErrorsNameTheLineTheKeyAndTheProblem) {
  struct Case {
    std::string yaml, expected;
  };
  const std::vector<Case> cases = {
      {"channels:\n  a:\n    type: slack\n    url: https://x/y\n    colour: red\n", "n.yaml:5: channels.a.colour: unknown key"},
      {"channels:\n  a:\n    type: pager\n", "n.yaml:3: channels.a.type: unknown type 'pager'"},
      {"channels:\n  a:\n    url: https://x\n", "channels.a.type: missing"},
      {"channels:\n  a:\n    type: email\n    smtp_url: smtp://h:25\n    from: me@x\n    to: you@x\n    username: u\n"
       "    password: hunter2\n",
       "n.yaml:8: channels.a.password: secrets are not read from the config file"},
      {"channels:\n  a:\n    type: ntfy\n    url: https://x\n    token_env: GPUWATCH_TEST_UNSET_VARIABLE\n",
       "n.yaml:5: channels.a.token_env: the environment variable GPUWATCH_TEST_UNSET_VARIABLE is not set"},
      {"channels:\n  a:\n    type: webhook\n    url_file: /nonexistent/gpuwatch-url\n",
       "n.yaml:4: channels.a.url_file: cannot read url_file '/nonexistent/gpuwatch-url': No such file or directory"},
      // Config-named files go through the bounded regular-file read: a device is refused unread.
      {"channels:\n  a:\n    type: ntfy\n    url: https://x\n    token_file: /dev/zero\n",
       "n.yaml:5: channels.a.token_file: token_file '/dev/zero' is a device: give a regular file"},
      {"channels:\n  a:\n    type: webhook\n    url: https://x\n    ca_file: /dev/zero\n",
       "ca_file '/dev/zero' is a device: give a regular file"},
      {"channels:\n  a:\n    type: webhook\n    url: https://x\n    env: [RUNBOOK_URL]\n",
       "n.yaml:5: channels.a.env: only exec channels take env"},
      {"channels:\n  a:\n    type: exec\n    command: cat\n    env: [\"A=B\"]\n", "n.yaml:5: channels.a.env: expected a variable name"},
      {"channels:\n  a:\n    type: webhook\n    url: https://x\n    rate_limit: lots\n", "n.yaml:5: channels.a.rate_limit: 'lots' is not a rate"},
      {"channels:\n  a:\n    type: webhook\n    url: https://x\n    timeout: soon\n", "n.yaml:5: channels.a.timeout:"},
      {"channels:\n  a:\n    type: email\n    smtp_url: smtp://h:25\n    to: you@x\n", "channels.a: from: missing"},
      {"channels:\n  a:\n    type: email\n    smtp_url: smtp://u:p@h:25\n    from: me@x\n    to: you@x\n",
       "smtp_url: put the user name in username"},
      {"channels:\n  a: [1, 2\n", "not valid YAML"},
      {"routes: {}\n", "n.yaml:1: routes: unknown key (known: channels)"},
      {"channels:\n  a:\n    type: webhook\n    url: https://x\n    send_resolved: maybe\n",
       "n.yaml:5: channels.a.send_resolved: expected true or false"},
  };
  for (const auto& c : cases) {
    auto result = parse_channel_config(c.yaml, "n.yaml", "");
    ASSERT_FALSE(result) << c.yaml;
    EXPECT_EQ(result.error().code, core::kExitUsage);
    EXPECT_NE(result.error().message.find(c.expected), std::string::npos)
        << "expected '" << c.expected << "' in: " << result.error().message;
  }
  // The secret itself is never quoted back.
  auto secret = parse_channel_config(cases[3].yaml, "n.yaml", "");
  EXPECT_EQ(secret.error().message.find("hunter2"), std::string::npos);
}

TEST(NotifyChannelConfig, SelectingChannelsOfTheFile) {
  TempDir dir;
  std::ofstream(dir.file("n.yaml")) << "channels:\n  hook:\n    type: webhook\n    url: http://127.0.0.1:9/a\n"
                                       "  mail:\n    type: email\n    smtp_url: smtp://127.0.0.1:25\n"
                                       "    from: g@x.org\n    to: o@x.org\n";
  auto all = parse_channels({}, dir.file("n.yaml"));
  ASSERT_TRUE(all) << error_of(all);
  EXPECT_EQ(all->size(), 2u);
  auto one = parse_channels({"email=mail", "hook", "slack=https://hooks.slack.com/x"}, dir.file("n.yaml"));
  ASSERT_TRUE(one) << error_of(one);
  ASSERT_EQ(one->size(), 3u);
  EXPECT_EQ((*one)[0].name, "mail");
  EXPECT_EQ((*one)[1].name, "hook");
  EXPECT_EQ((*one)[2].type, ChannelType::Slack);
  auto wrong_type = parse_channels({"email=hook"}, dir.file("n.yaml"));
  ASSERT_FALSE(wrong_type);
  EXPECT_NE(error_of(wrong_type).find("channel hook is of type webhook, not email"), std::string::npos) << error_of(wrong_type);
  auto missing = parse_channels({"email=nobody"}, dir.file("n.yaml"));
  EXPECT_NE(error_of(missing).find("no email channel named 'nobody'"), std::string::npos) << error_of(missing);
  auto no_file = parse_channels({}, dir.file("absent.yaml"));
  EXPECT_NE(error_of(no_file).find("cannot read --notify-config '"), std::string::npos) << error_of(no_file);
  auto twice = parse_channels({"webhook=http://127.0.0.1:1/a", "webhook=http://127.0.0.1:2/b"}, "");
  ASSERT_TRUE(twice);
  EXPECT_EQ((*twice)[1].name, "webhook-2");
}

// key_password_file: the passphrase of an encrypted key_file, resolved like key_file (beside the
// config), checked at load (readable, not empty, only with key_file), held as a secret.
TEST(NotifyChannelConfig, KeyPasswordFileOfAnEncryptedClientKey) {
  TempDir dir;
  std::ofstream(dir.file("client.pem")) << "-----BEGIN CERTIFICATE-----\n";
  std::ofstream(dir.file("client.key")) << "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n";
  std::ofstream(dir.file("client.pass")) << "hunter2\n";
  std::ofstream(dir.file("empty.pass")) << "";
  for (const char* name : {"client.pass", "empty.pass"}) {
    std::filesystem::permissions(dir.file(name), std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  auto config = [&](const std::string& tls) {
    return parse_channel_config("channels:\n  hook:\n    type: webhook\n    url: https://127.0.0.1:9/h\n" + tls, "n.yaml", dir.path());
  };
  const std::string key = "    cert_file: client.pem\n    key_file: client.key\n";
  auto channels = config(key + "    key_password_file: client.pass\n");
  ASSERT_TRUE(channels) << error_of(channels);
  const Channel& hook = channels->front();
  EXPECT_EQ(hook.key_file, dir.file("client.key"));
  EXPECT_EQ(hook.key_password_file, dir.file("client.pass"));  // beside the config
  EXPECT_EQ(hook.key_password, "hunter2");                     // one trailing newline dropped
  EXPECT_EQ(redact("curl: bad key hunter2", hook).find("hunter2"), std::string::npos);  // a secret of the channel

  struct Case {
    std::string tls, expected;
  };
  const std::vector<Case> cases = {
      {key + "    key_password_file: nowhere.pass\n",
       "n.yaml:7: channels.hook.key_password_file: cannot read key_password_file '" + dir.file("nowhere.pass") + "'"},
      {key + "    key_password_file: empty.pass\n",
       "channels.hook.key_password_file: key_password_file '" + dir.file("empty.pass") + "' is empty"},
      {"    key_password_file: client.pass\n", "n.yaml:5: channels.hook.key_password_file: needs key_file"},
      {key, "n.yaml:6: channels.hook.key_file: key_file '" + dir.file("client.key") + "' is encrypted: give key_password_file"},
      {key + "    key_password: hunter2\n",
       "n.yaml:7: channels.hook.key_password: secrets are not read from the config file: use key_password_file (a file holding it)"},
  };
  for (const auto& c : cases) {
    auto result = config(c.tls);
    ASSERT_FALSE(result) << c.tls;
    EXPECT_EQ(result.error().code, core::kExitUsage);
    EXPECT_NE(error_of(result).find(c.expected), std::string::npos) << "expected '" << c.expected << "' in: " << error_of(result);
    EXPECT_EQ(error_of(result).find("hunter2"), std::string::npos) << error_of(result);
  }
}

TEST(NotifyChannelConfig, TheListFormWithNamesWorksToo) {
  auto channels = parse_channel_config("channels:\n  - name: team\n    type: slack\n    url: https://hooks.example/x\n"
                                       "  - name: hook\n    type: webhook\n    url: http://127.0.0.1:9/h\n",
                                       "n.yaml", "");
  ASSERT_TRUE(channels) << channels.error().message;
  ASSERT_EQ(channels->size(), 2u);
  EXPECT_EQ((*channels)[0].name, "team");
  EXPECT_EQ((*channels)[1].type, ChannelType::Webhook);
  auto typo = parse_channel_config("channels:\n  - name: team\n    type: slak\n    url: https://x/y\n", "n.yaml", "");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message.find("n.yaml:3: channels.team.type: unknown type 'slak'"), std::string::npos)
      << typo.error().message;
  auto unnamed = parse_channel_config("channels:\n  - type: slack\n    url: https://x/y\n", "n.yaml", "");
  ASSERT_FALSE(unnamed);
  EXPECT_NE(unnamed.error().message.find("channels[0].name: missing"), std::string::npos) << unnamed.error().message;
  auto twice = parse_channel_config("channels:\n  - name: a\n    type: exec\n    command: x\n  - name: a\n    type: exec\n    command: y\n",
                                    "n.yaml", "");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("the name 'a' is used twice"), std::string::npos) << twice.error().message;
}

TEST(NotifyChannelConfig, RateLimitGrammar) {
  auto limit = parse_rate_limit("20/1m");
  ASSERT_TRUE(limit);
  EXPECT_EQ(limit->messages, 20);
  EXPECT_EQ(limit->per, std::chrono::seconds(60));
  auto none = parse_rate_limit("none");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->messages, 0);
  for (const char* bad : {"20", "x/1m", "0/1m", "5/0s", "5/abc", "-1/1m"}) EXPECT_FALSE(parse_rate_limit(bad)) << bad;
}

TEST(NotifyChannelConfig, DesktopNeedsASessionBus) {
  const char* saved = std::getenv("DBUS_SESSION_BUS_ADDRESS");
  const std::string keep = saved ? saved : "";
  ::unsetenv("DBUS_SESSION_BUS_ADDRESS");
  auto without = parse_channel_spec("desktop");
  ASSERT_FALSE(without);
  EXPECT_NE(without.error().message.find("DBUS_SESSION_BUS_ADDRESS is not set"), std::string::npos);
  ::setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/1000/bus", 1);
  EXPECT_TRUE(parse_channel_spec("desktop"));
  EXPECT_FALSE(parse_channel_spec("desktop=loud"));
  if (saved) ::setenv("DBUS_SESSION_BUS_ADDRESS", keep.c_str(), 1);
  else ::unsetenv("DBUS_SESSION_BUS_ADDRESS");
}

}  // namespace channel_config_test
}  // namespace gpuwatch::notify
