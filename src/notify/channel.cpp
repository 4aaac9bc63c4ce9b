#include "notify/channel.hpp"

#include <algorithm>

namespace gpuwatch::notify {
namespace {

struct TypeName {
  ChannelType type;
  std::string_view name;
};
constexpr TypeName kTypeNames[] = {
    {ChannelType::Webhook, "webhook"}, {ChannelType::Slack, "slack"},
    {ChannelType::Discord, "discord"}, {ChannelType::Teams, "teams"},
    {ChannelType::Ntfy, "ntfy"},       {ChannelType::Alertmanager, "alertmanager"},
    {ChannelType::Email, "email"},     {ChannelType::Desktop, "desktop"},
    {ChannelType::Exec, "exec"},
};

void replace_all(std::string& text, const std::string& secret, const std::string& with) {
  if (secret.size() < 4) return;  // too short to be a secret worth scrubbing (and would mangle text)
  for (std::size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + with.size())) {
    text.replace(at, secret.size(), with);
  }
}

}  // namespace

const char* to_string(ChannelType type) {
  for (const auto& entry : kTypeNames) {
    if (entry.type == type) return entry.name.data();
  }
  return "webhook";
}

std::optional<ChannelType> channel_type_from_string(std::string_view text) {
  for (const auto& entry : kTypeNames) {
    if (entry.name == text) return entry.type;
  }
  return std::nullopt;
}

std::string channel_type_names() {
  std::string out;
  for (const auto& entry : kTypeNames) out += (out.empty() ? "" : ", ") + std::string(entry.name);
  return out;
}

std::vector<std::string> Channel::secrets() const {
  std::vector<std::string> out;
  if (!url.empty()) out.push_back(url);
  if (!token.empty()) out.push_back(token);
  if (!password.empty()) out.push_back(password);
  if (!key_password.empty()) out.push_back(key_password);
  for (const auto& [header, value] : headers) {
    if (!value.empty()) out.push_back(value);
  }
  // The URL without its scheme and host part too: curl quotes paths in some messages.
  const auto scheme = url.find("://");
  if (scheme != std::string::npos) {
    const auto path = url.find('/', scheme + 3);
    if (path != std::string::npos && path + 1 < url.size()) out.push_back(url.substr(path));
  }
  // Longest first, so a secret that contains another is replaced whole.
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return out;
}

std::string redact_url(std::string_view url) {
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return url.empty() ? std::string() : std::string("…");
  std::string_view rest = url.substr(scheme + 3);
  const auto end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, end);
  const auto at = authority.rfind('@');  // user:password@host
  if (at != std::string_view::npos) authority = authority.substr(at + 1);
  std::string out = std::string(url.substr(0, scheme + 3)) + std::string(authority);
  if (end != std::string_view::npos && end + 1 < rest.size()) out += "/…";
  return out;
}

std::string redact(std::string text, const Channel& channel) {
  for (const auto& secret : channel.secrets()) {
    const bool is_url = secret.find("://") != std::string::npos;
    replace_all(text, secret, is_url ? redact_url(secret) : std::string("<redacted>"));
  }
  return text;
}

std::string describe(const Channel& channel) {
  std::string where;
  switch (channel.type) {
    case ChannelType::Email: {
      std::string to;
      for (const auto& address : channel.to) to += (to.empty() ? "" : ", ") + address;
      where = redact_url(channel.smtp_url) + " to " + to;
      break;
    }
    case ChannelType::Desktop: where = "notify-send"; break;
    case ChannelType::Exec: where = "command"; break;  // the command line may carry secrets too
    default: where = redact_url(channel.url); break;
  }
  return channel.name + " (" + to_string(channel.type) + ", " + where + ")";
}

}  // namespace gpuwatch::notify
