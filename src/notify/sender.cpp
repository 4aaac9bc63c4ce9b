#include "notify/sender.hpp"
#include "core/json_text.hpp"

#include <unistd.h>

#include <cstdlib>

#include "notify/chat_payloads.hpp"
#include "notify/exec_environment.hpp"
#include "notify/curl_transport.hpp"
#include "notify/process_runner.hpp"
#include "notify/text_messages.hpp"
#include "notify/webhook_payload.hpp"

namespace gpuwatch::notify {
namespace {

HttpRequest json_request(const Channel& channel, const nlohmann::json& body) {
  HttpRequest request;
  request.url = channel.url;
  request.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  request.headers.push_back("Content-Type: application/json");
  request.username = channel.username;
  request.password = channel.password;
  request.tls.ca_file = channel.ca_file;
  request.tls.cert_file = channel.cert_file;  // mutual TLS, when configured
  request.tls.key_file = channel.key_file;
  request.tls.key_password = channel.key_password;  // secret: never in the result's text
  request.tls.insecure_skip_verify = channel.insecure_skip_verify;
  request.timeout = channel.timeout;
  if (!channel.token.empty()) request.headers.push_back("Authorization: Bearer " + channel.token);
  for (const auto& [name, value] : channel.headers) request.headers.push_back(name + ": " + value);
  return request;
}

SendResult scrubbed(SendResult result, const Channel& channel) {
  result.error = redact(result.error, channel);
  result.answer = redact(result.answer, channel);
  return result;
}

SendResult send_ntfy(const Channel& channel, const Group& group, const std::atomic<bool>* cancel) {
  const NtfyMessage message = ntfy_message(group);
  HttpRequest request = json_request(channel, nullptr);
  request.headers.erase(request.headers.begin());  // the body is text, not JSON
  request.headers.insert(request.headers.begin(), "Content-Type: text/plain; charset=utf-8");
  request.body = message.body;
  request.headers.push_back("Title: " + message.title);
  request.headers.push_back("Priority: " + std::to_string(message.priority));
  std::string tags;
  for (const auto& tag : message.tags) tags += (tags.empty() ? "" : ",") + tag;
  if (!tags.empty()) request.headers.push_back("Tags: " + tags);
  if (!channel.external_url.empty()) request.headers.push_back("Click: " + channel.external_url);
  return http_post(request, cancel);
}

SendResult send_email(const Channel& channel, const Group& group, alerts::TimePoint now, const std::string& message_id,
                      const std::atomic<bool>* cancel) {
  SmtpRequest request;
  request.url = channel.smtp_url;
  request.require_starttls = channel.smtp_tls == SmtpTls::StartTls;
  request.username = channel.username;
  request.password = channel.password;
  request.from = channel.from;
  request.to = channel.to;
  request.message = email_message(channel, group, now, message_id).text;
  request.tls.ca_file = channel.ca_file;
  request.tls.cert_file = channel.cert_file;  // mutual TLS, when configured
  request.tls.key_file = channel.key_file;
  request.tls.key_password = channel.key_password;  // secret: never in the result's text
  request.tls.insecure_skip_verify = channel.insecure_skip_verify;
  request.timeout = channel.timeout;
  return smtp_send(request, cancel);
}

SendResult send_desktop(const Channel& channel, const Group& group, const std::atomic<bool>* cancel) {
  const DesktopMessage message = desktop_message(group);
  return run_process({"notify-send", "--app-name=gpuwatch", "--urgency=" + message.urgency, "--", message.summary, message.body},
                     "", channel.timeout, cancel);
}

std::vector<alerts::Alert> alerts_of(const Group& group) {
  std::vector<alerts::Alert> out;
  for (const auto& event : group.events) {
    alerts::Alert alert = event.alert;
    if (event.kind == alerts::EventKind::Resolved) {
      alert.state = alerts::AlertState::Resolved;
      if (!alert.resolved_at) alert.resolved_at = event.at;
    } else {
      alert.state = alerts::AlertState::Firing;
    }
    out.push_back(std::move(alert));
  }
  return out;
}

}  // namespace

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

std::string alertmanager_endpoint(const std::string& base_url) {
  const std::string suffix = "/api/v2/alerts";
  if (base_url.size() >= suffix.size() && base_url.compare(base_url.size() - suffix.size(), suffix.size(), suffix) == 0) {
    return base_url;
  }
  std::string base = base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + suffix;
}

SendResult send_alertmanager(const Channel& channel, const std::vector<alerts::Alert>& alerts, alerts::TimePoint now,
                             const std::atomic<bool>* cancel) {
  HttpRequest request = json_request(channel, alertmanager_alerts(alerts, now, channel.resend_interval, channel.external_url));
  request.url = alertmanager_endpoint(channel.url);
  return scrubbed(http_post(request, cancel), channel);
}

SendResult send_group(const Channel& channel, const Group& group, alerts::TimePoint now, const std::string& message_id,
                      const std::atomic<bool>* cancel) {
  SendResult result;
  switch (channel.type) {
    case ChannelType::Webhook: result = http_post(json_request(channel, webhook_payload(channel, group)), cancel); break;
    case ChannelType::Slack: result = http_post(json_request(channel, slack_payload(channel, group)), cancel); break;
    case ChannelType::Discord: result = http_post(json_request(channel, discord_payload(channel, group)), cancel); break;
    case ChannelType::Teams: result = http_post(json_request(channel, teams_payload(channel, group)), cancel); break;
    case ChannelType::Ntfy: result = send_ntfy(channel, group, cancel); break;
    case ChannelType::Alertmanager: return send_alertmanager(channel, alerts_of(group), now, cancel);
    case ChannelType::Email: result = send_email(channel, group, now, message_id, cancel); break;
    case ChannelType::Desktop: result = send_desktop(channel, group, cancel); break;
    case ChannelType::Exec: {
      // A scrubbed environment: never the other channels' secrets (exec_environment.hpp).
      const auto environment = exec_environment(channel.env, [](const std::string& name) { return std::getenv(name.c_str()); });
      result = run_process({"/bin/sh", "-c", channel.command}, core::json_text(webhook_payload(channel, group)) + "\n",
                           channel.timeout, cancel, &environment);
      break;
    }
  }
  return scrubbed(std::move(result), channel);
}

Group test_group(alerts::TimePoint now) {
  alerts::AlertEvent event;
  event.kind = alerts::EventKind::Firing;
  event.at = now;
  auto& alert = event.alert;
  alert.rule = "GpuwatchTest";
  alert.severity = alerts::Severity::Info;
  alert.state = alerts::AlertState::Firing;
  const std::string host = host_name();
  alert.labels = {{"alertname", alert.rule}, {"severity", "info"}, {"host", host}};
  alert.annotations = {{"summary", "a test message from `gpuwatch alerts test`: this channel works"},
                       {"description", "Sent on request to check the channel; no GPU is in trouble."}};
  alert.active_since = now;
  alert.fired_at = now;
  return Group{host, {event}};
}

SendResult send_test(const Channel& channel) {
  const auto now = std::chrono::system_clock::now();
  return send_group(channel, test_group(now), now, "test", nullptr);
}

}  // namespace gpuwatch::notify
