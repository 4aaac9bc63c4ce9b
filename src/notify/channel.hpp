#pragma once
// A notification channel: where messages go and how (docs/alerts.md "Channels"). Plain values,
// checked once by parse_channels (channel_config.hpp); secrets (URLs with tokens, passwords,
// tokens) are held here but never printed: describe() and redact() give what may be shown.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "alerts/alert.hpp"

namespace gpuwatch::notify {

enum class ChannelType : std::uint8_t { Webhook, Slack, Discord, Teams, Ntfy, Alertmanager, Email, Desktop, Exec };
const char* to_string(ChannelType type);  // "webhook", "slack", ...
std::optional<ChannelType> channel_type_from_string(std::string_view text);
std::string channel_type_names();  // "webhook, slack, discord, ..." for error messages

// How email talks TLS: STARTTLS required (smtp://, the default), implicit TLS (smtps://), or none
// (only for a relay on the same host; refused unless asked for).
enum class SmtpTls : std::uint8_t { StartTls, Implicit, None };

struct RateLimit {
  int messages = 20;                            // at most this many messages...
  std::chrono::seconds per{std::chrono::minutes(1)};  // ...per this span; more wait in the queue
};

struct Channel {
  std::string name;        // "slack", "ops-mail" (config), unique among the channels
  ChannelType type = ChannelType::Webhook;
  std::string url;         // secret: webhook URLs carry tokens. Alertmanager: its base URL
  std::map<std::string, std::string> headers;  // extra HTTP headers (values are secret)
  std::string token;       // secret: ntfy access token (Authorization: Bearer)
  std::string username;    // email AUTH (or HTTP basic auth for webhook/ntfy/alertmanager)
  std::string password;    // secret
  // email
  std::string smtp_url;    // smtp://host:587 or smtps://host:465 (no credentials in it)
  std::string from;
  std::vector<std::string> to;
  SmtpTls smtp_tls = SmtpTls::StartTls;
  // TLS for HTTPS and SMTP
  std::string ca_file;     // trust this CA bundle (PEM) instead of the system's
  std::string cert_file;   // a client certificate (mutual TLS), PEM, with key_file: both or neither
  std::string key_file;    // its key, PEM; if encrypted, key_password_file gives its passphrase
  std::string key_password_file;  // the file holding that passphrase (its path, resolved)
  std::string key_password;  // secret: read from key_password_file at load (core/key_password_file.hpp)
  bool insecure_skip_verify = false;  // tests only: accept any certificate
  // exec
  std::string command;     // run with /bin/sh -c; the group as JSON on stdin
  std::vector<std::string> env;  // names of serve's variables it gets (only these, PATH, LANG: exec_environment.hpp)
  // what to send
  alerts::Severity min_severity = alerts::Severity::Info;
  bool send_resolved = true;
  bool send_repeat = true;
  RateLimit rate_limit;
  std::chrono::milliseconds timeout{std::chrono::seconds(10)};  // per call
  std::chrono::seconds resend_interval{std::chrono::minutes(1)};  // alertmanager: firing alerts re-sent
  std::string external_url;  // links in messages (the dashboard), webhook's externalURL

  // Secret values held by this channel (url, token, password, key_password, header values), to scrub from
  // any text that might quote them.
  std::vector<std::string> secrets() const;
};

// "scheme://host[:port]/…": what of a URL may be shown (no user info, path or query).
std::string redact_url(std::string_view url);
// TEXT with every secret of CHANNEL replaced by a redacted form.
std::string redact(std::string text, const Channel& channel);
// "slack (slack, https://hooks.slack.com/…)": for logs and `alerts test`.
std::string describe(const Channel& channel);

}  // namespace gpuwatch::notify
