#include "notify/channel_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "core/bounded_read.hpp"
#include "core/exit_codes.hpp"
#include "core/key_password_file.hpp"
#include "core/time_spec.hpp"
#include "notify/exec_environment.hpp"

namespace gpuwatch::notify {
namespace {

core::Error usage_error(std::string message) { return core::make_error(std::move(message), core::kExitUsage); }

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool is_http_url(std::string_view url) { return starts_with(url, "http://") || starts_with(url, "https://"); }

std::string trim_trailing_newlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

// Reads a secret from PATH (KEY: "token_file", ...): the whole file, trailing newlines dropped;
// a regular file of at most 64 KiB (core/bounded_read.hpp), so a FIFO or /dev/zero is refused
// at once. The error never quotes it.
core::Result<std::string> read_secret_file(const std::string& path, const std::string& key) {
  auto text = core::read_regular_file(path, key, core::kMaxSecretFileBytes);
  if (!text) return usage_error(text.error().message);
  std::string secret = trim_trailing_newlines(std::move(*text));
  if (secret.empty()) return usage_error(path + " is empty");
  return secret;
}

core::Result<std::string> read_secret_env(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr || *value == '\0') return usage_error("the environment variable " + name + " is not set");
  return std::string(value);
}

const std::set<std::string> kKeys = {
    "type", "url", "url_file", "url_env", "headers", "token_file", "token_env", "username", "password_file",
    "password_env", "smtp_url", "from", "to", "tls", "ca_file", "cert_file", "key_file", "key_password_file",
    "insecure_skip_verify", "command", "severity", "send_resolved", "repeat", "rate_limit", "timeout",
    "resend_interval", "external_url", "env"};

std::string known_keys() {
  std::string out;
  for (const auto& key : kKeys) out += (out.empty() ? "" : ", ") + key;
  return out;
}

// Walks one channel's mapping; the first problem ends the walk with an error naming the file,
// the line, the key path and the problem.
class ChannelReader {
 public:
  ChannelReader(std::string source, std::string base_dir) : source_(std::move(source)), base_dir_(std::move(base_dir)) {}

  // LISTED: the list form (`- name: NAME`), where `name` is one of the keys.
  core::Result<Channel> read(const std::string& name, const YAML::Node& node, bool listed = false) {
    prefix_ = "channels." + name + ".";
    Channel channel;
    channel.name = name;
    if (!node.IsMap()) return fail(node, "channels." + name, "expected a mapping (type, url, ...)");
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      if (key == "token" || key == "password" || key == "key_password") {
        return fail(it->first, prefix_ + key, "secrets are not read from the config file: use " + key + "_file (a file holding it)" +
                                                  (key == "key_password" ? "" : " or " + key + "_env (an environment variable)"));
      }
      if (listed && key == "name") continue;
      if (!kKeys.count(key)) return fail(it->first, prefix_ + key, "unknown key (known: " + known_keys() + ")");
    }
    std::string type;
    if (auto r = scalar(node, "type", type); !r) return r.error();
    if (type.empty()) return fail(node, prefix_ + "type", "missing (one of " + channel_type_names() + ")");
    auto parsed_type = channel_type_from_string(type);
    if (!parsed_type) return fail(node["type"], prefix_ + "type", "unknown type '" + type + "' (one of " + channel_type_names() + ")");
    channel.type = *parsed_type;

    if (auto r = secret(node, "url", channel.url, /*inline_allowed=*/true); !r) return r.error();
    if (auto r = secret(node, "token", channel.token, false); !r) return r.error();
    if (auto r = secret(node, "password", channel.password, false); !r) return r.error();
    for (auto [key, out] : {std::pair<const char*, std::string*>{"username", &channel.username},
                            {"smtp_url", &channel.smtp_url},
                            {"from", &channel.from},
                            {"ca_file", &channel.ca_file},
                            {"cert_file", &channel.cert_file},
                            {"key_file", &channel.key_file},
                            {"key_password_file", &channel.key_password_file},
                            {"command", &channel.command},
                            {"external_url", &channel.external_url}}) {
      if (auto r = scalar(node, key, *out); !r) return r.error();
    }
    for (std::string* path : {&channel.ca_file, &channel.cert_file, &channel.key_file, &channel.key_password_file}) {
      if (!path->empty()) *path = resolve(*path);
    }
    auto pass = core::key_password_for(channel.key_file, channel.key_password_file, "key_file", "key_password_file");
    const std::string pass_key = channel.key_password_file.empty() ? "key_file" : "key_password_file";
    if (!pass) return fail(node[pass_key], prefix_ + pass_key, pass.error().message);
    channel.key_password = std::move(*pass);
    if (auto r = read_to(node, channel); !r) return r.error();
    if (auto r = read_env(node, channel); !r) return r.error();
    if (auto r = read_headers(node, channel); !r) return r.error();
    if (auto r = read_options(node, channel); !r) return r.error();
    if (auto valid = validate_channel(channel); !valid) return fail(node, "channels." + name, valid.error().message);
    return channel;
  }

  core::Error fail(const YAML::Node& at, const std::string& path, const std::string& problem) const {
    const int line = at.Mark().line;
    return usage_error(source_ + (line >= 0 ? ":" + std::to_string(line + 1) : std::string()) + ": " + path + ": " +
                       problem);
  }

 private:
  core::Result<void> scalar(const YAML::Node& map, const std::string& key, std::string& out) const {
    const YAML::Node node = map[key];
    if (!node || node.IsNull()) return {};
    if (!node.IsScalar()) return fail(node, prefix_ + key, "expected a string");
    out = node.Scalar();
    return {};
  }

  core::Result<void> boolean(const YAML::Node& map, const std::string& key, bool& out) const {
    const YAML::Node node = map[key];
    if (!node || node.IsNull()) return {};
    if (!node.IsScalar() || (node.Scalar() != "true" && node.Scalar() != "false")) {
      return fail(node, prefix_ + key, "expected true or false");
    }
    out = node.Scalar() == "true";
    return {};
  }

  core::Result<void> duration(const YAML::Node& map, const std::string& key, std::chrono::milliseconds& out) const {
    std::string text;
    if (auto r = scalar(map, key, text); !r) return r;
    if (text.empty()) return {};
    auto parsed = core::parse_duration(text);
    if (!parsed) return fail(map[key], prefix_ + key, parsed.error().message);
    out = *parsed;
    return {};
  }

  std::string resolve(const std::string& file) const {
    if (file.empty() || file.front() == '/' || base_dir_.empty()) return file;
    return (std::filesystem::path(base_dir_) / file).string();
  }

  // KEY inline (where allowed), KEY_file or KEY_env: at most one of them.
  core::Result<void> secret(const YAML::Node& map, const std::string& key, std::string& out, bool inline_allowed) const {
    std::string inline_value, file, env;
    if (inline_allowed) {
      if (auto r = scalar(map, key, inline_value); !r) return r;
    }
    if (auto r = scalar(map, key + "_file", file); !r) return r;
    if (auto r = scalar(map, key + "_env", env); !r) return r;
    const int given = int(!inline_value.empty()) + int(!file.empty()) + int(!env.empty());
    if (given > 1) {
      return fail(map, prefix_ + key,
                  "set only one of " + (inline_allowed ? key + ", " : std::string()) + key + "_file and " + key + "_env");
    }
    if (!inline_value.empty()) out = inline_value;
    if (!file.empty()) {
      auto value = read_secret_file(resolve(file), key + "_file");
      if (!value) return fail(map[key + "_file"], prefix_ + key + "_file", value.error().message);
      out = *value;
    }
    if (!env.empty()) {
      auto value = read_secret_env(env);
      if (!value) return fail(map[key + "_env"], prefix_ + key + "_env", value.error().message);
      out = *value;
    }
    return {};
  }

  core::Result<void> read_to(const YAML::Node& map, Channel& channel) const {
    const YAML::Node node = map["to"];
    if (!node || node.IsNull()) return {};
    if (node.IsScalar()) {
      channel.to.push_back(node.Scalar());
      return {};
    }
    if (!node.IsSequence()) return fail(node, prefix_ + "to", "expected an address or a list of addresses");
    for (const auto& item : node) {
      if (!item.IsScalar() || item.Scalar().empty()) return fail(item, prefix_ + "to", "expected an address");
      channel.to.push_back(item.Scalar());
    }
    return {};
  }

  // exec only: the names of serve's environment variables the command gets (exec_environment.hpp).
  core::Result<void> read_env(const YAML::Node& map, Channel& channel) const {
    const YAML::Node node = map["env"];
    if (!node || node.IsNull()) return {};
    if (channel.type != ChannelType::Exec) return fail(node, prefix_ + "env", "only exec channels take env");
    if (!node.IsSequence()) return fail(node, prefix_ + "env", "expected a list of environment variable names");
    for (const auto& item : node) {
      if (!item.IsScalar() || !is_environment_name(item.Scalar()))
        return fail(item, prefix_ + "env", "expected a variable name (letters, digits and _, not starting with a digit)");
      channel.env.push_back(item.Scalar());
    }
    return {};
  }

  core::Result<void> read_headers(const YAML::Node& map, Channel& channel) const {
    const YAML::Node node = map["headers"];
    if (!node || node.IsNull()) return {};
    if (!node.IsMap()) return fail(node, prefix_ + "headers", "expected a mapping of header names to values");
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string header = it->first.Scalar();
      if (!it->second.IsScalar()) return fail(it->second, prefix_ + "headers." + header, "expected a string");
      if (header.empty() || header.find_first_of(": \r\n") != std::string::npos) {
        return fail(it->first, prefix_ + "headers." + header, "not a valid header name");
      }
      if (it->second.Scalar().find_first_of("\r\n") != std::string::npos) {
        return fail(it->second, prefix_ + "headers." + header, "a header value cannot span lines");
      }
      channel.headers[header] = it->second.Scalar();
    }
    return {};
  }

  core::Result<void> read_options(const YAML::Node& map, Channel& channel) const {
    if (auto r = boolean(map, "insecure_skip_verify", channel.insecure_skip_verify); !r) return r;
    if (auto r = boolean(map, "send_resolved", channel.send_resolved); !r) return r;
    if (auto r = boolean(map, "repeat", channel.send_repeat); !r) return r;
    std::string text;
    if (auto r = scalar(map, "severity", text); !r) return r;
    if (!text.empty()) {
      auto severity = alerts::severity_from_string(text);
      if (!severity) return fail(map["severity"], prefix_ + "severity", "unknown severity '" + text + "' (info, warning, critical)");
      channel.min_severity = *severity;
    }
    text.clear();
    if (auto r = scalar(map, "tls", text); !r) return r;
    if (!text.empty()) {
      if (text == "starttls") channel.smtp_tls = SmtpTls::StartTls;
      else if (text == "implicit") channel.smtp_tls = SmtpTls::Implicit;
      else if (text == "none") channel.smtp_tls = SmtpTls::None;
      else return fail(map["tls"], prefix_ + "tls", "unknown value '" + text + "' (starttls, implicit, none)");
    } else if (starts_with(channel.smtp_url, "smtps://")) {
      channel.smtp_tls = SmtpTls::Implicit;
    }
    std::chrono::milliseconds timeout = channel.timeout, resend = channel.resend_interval;
    if (auto r = duration(map, "timeout", timeout); !r) return r;
    if (auto r = duration(map, "resend_interval", resend); !r) return r;
    channel.timeout = timeout;
    channel.resend_interval = std::chrono::duration_cast<std::chrono::seconds>(resend);
    if (channel.resend_interval.count() < 1) return fail(map["resend_interval"], prefix_ + "resend_interval", "must be 1s or more");
    text.clear();
    if (auto r = scalar(map, "rate_limit", text); !r) return r;
    if (!text.empty()) {
      auto limit = parse_rate_limit(text);
      if (!limit) return fail(map["rate_limit"], prefix_ + "rate_limit", limit.error().message);
      channel.rate_limit = *limit;
    }
    return {};
  }

 public:
  // "20/1m": at most 20 messages a minute; "5/30s"; "0" (or "none"): no limit.
  static core::Result<RateLimit> parse_rate_limit(const std::string& text) {
    if (text == "none" || text == "0") return RateLimit{0, std::chrono::seconds(1)};
    const auto slash = text.find('/');
    const std::string problem = "'" + text + "' is not a rate: give MESSAGES/DURATION, e.g. 20/1m, or none";
    if (slash == std::string::npos) return usage_error(problem);
    int messages = 0;
    try {
      std::size_t used = 0;
      messages = std::stoi(text.substr(0, slash), &used);
      if (used != slash || messages <= 0) return usage_error(problem);
    } catch (const std::exception&) {
      return usage_error(problem);
    }
    auto per = core::parse_duration(text.substr(slash + 1));
    if (!per || *per < std::chrono::seconds(1)) return usage_error(problem);
    return RateLimit{messages, std::chrono::duration_cast<std::chrono::seconds>(*per)};
  }

 private:
  std::string source_, base_dir_, prefix_;
};

std::string spec_error(const std::string& spec, const std::string& problem) {
  // A spec may hold a secret URL: show only what redact_url leaves of it.
  const auto eq = spec.find('=');
  const std::string shown = eq == std::string::npos ? spec : spec.substr(0, eq + 1) + redact_url(spec.substr(eq + 1));
  return "--notify " + shown + ": " + problem;
}

}  // namespace

core::Result<void> validate_channel(const Channel& c) {
  auto need_http_url = [&]() -> core::Result<void> {
    if (c.url.empty()) return usage_error("url: missing (set url, url_file or url_env)");
    if (!is_http_url(c.url)) return usage_error("url: " + redact_url(c.url) + " is not an http:// or https:// URL");
    if (c.url.find_first_of(" \r\n\t") != std::string::npos) return usage_error("url: contains white space");
    return {};
  };
  switch (c.type) {
    case ChannelType::Webhook:
    case ChannelType::Slack:
    case ChannelType::Discord:
    case ChannelType::Teams:
    case ChannelType::Ntfy:
    case ChannelType::Alertmanager:
      if (auto r = need_http_url(); !r) return r;
      break;
    case ChannelType::Email:
      if (c.smtp_url.empty()) return usage_error("smtp_url: missing (smtp://host:587 or smtps://host:465)");
      if (!starts_with(c.smtp_url, "smtp://") && !starts_with(c.smtp_url, "smtps://")) {
        return usage_error("smtp_url: " + redact_url(c.smtp_url) + " is not an smtp:// or smtps:// URL");
      }
      if (c.smtp_url.find('@') != std::string::npos) {
        return usage_error("smtp_url: put the user name in username and the password in password_file or password_env");
      }
      if (c.smtp_tls == SmtpTls::Implicit && !starts_with(c.smtp_url, "smtps://")) {
        return usage_error("tls: implicit needs an smtps:// URL (smtp:// is STARTTLS)");
      }
      if (c.smtp_tls == SmtpTls::StartTls && starts_with(c.smtp_url, "smtps://")) {
        return usage_error("tls: starttls needs an smtp:// URL (smtps:// is implicit TLS)");
      }
      if (c.from.empty()) return usage_error("from: missing (the sender's address)");
      if (c.to.empty()) return usage_error("to: missing (one address or a list)");
      for (const auto& address : c.to) {
        if (address.find('@') == std::string::npos || address.find_first_of("\r\n<>") != std::string::npos) {
          return usage_error("to: '" + address + "' is not an email address");
        }
      }
      if (c.from.find('@') == std::string::npos || c.from.find_first_of("\r\n<>") != std::string::npos) {
        return usage_error("from: '" + c.from + "' is not an email address");
      }
      if (!c.password.empty() && c.username.empty()) return usage_error("username: missing (a password is set)");
      if (!c.password.empty() && c.smtp_tls == SmtpTls::None) {
        return usage_error("tls: none would send the password in clear text (use starttls or implicit)");
      }
      break;
    case ChannelType::Desktop:
      if (const char* bus = std::getenv("DBUS_SESSION_BUS_ADDRESS"); bus == nullptr || *bus == '\0') {
        return usage_error("desktop: no session bus (DBUS_SESSION_BUS_ADDRESS is not set): notify-send needs a "
                           "logged-in desktop session");
      }
      break;
    case ChannelType::Exec:
      if (c.command.empty()) return usage_error("command: missing (the command to run; it reads the alerts as JSON on stdin)");
      break;
  }
  if (!c.password.empty() && c.username.empty()) return usage_error("username: missing (a password is set)");
  if (c.timeout < std::chrono::milliseconds(100)) return usage_error("timeout: must be 100ms or more");
  // curl opens them by path: regular files of at most 1 MiB.
  for (auto [key, path] : {std::pair{"ca_file", &c.ca_file}, std::pair{"cert_file", &c.cert_file}, std::pair{"key_file", &c.key_file}}) {
    if (path->empty()) continue;
    if (auto regular = core::check_regular_file(*path, key); !regular) return usage_error(regular.error().message);
  }
  if (c.cert_file.empty() != c.key_file.empty()) {
    return usage_error(c.cert_file.empty() ? "key_file: needs cert_file too (a client key is sent with its certificate)"
                                           : "cert_file: needs key_file too (a client certificate is sent with its key)");
  }
  if (!c.cert_file.empty() && (c.type == ChannelType::Desktop || c.type == ChannelType::Exec)) {
    return usage_error("cert_file: only HTTPS and email channels send a client certificate");
  }
  return {};
}

core::Result<Channel> parse_channel_spec(const std::string& spec) {
  if (spec.empty()) return usage_error("--notify: empty (give TYPE=URL, desktop, exec=COMMAND or a channel name)");
  Channel channel;
  const auto eq = spec.find('=');
  const std::string type_text = spec.substr(0, eq);
  auto type = channel_type_from_string(type_text);
  if (!type) {
    return usage_error(spec_error(spec, eq == std::string::npos
                                            ? "no channel of that name (define it in --notify-config FILE), and not a type (" +
                                                  channel_type_names() + ")"
                                            : "unknown channel type '" + type_text + "' (one of " + channel_type_names() + ")"));
  }
  channel.type = *type;
  channel.name = type_text;
  const std::string value = eq == std::string::npos ? std::string() : spec.substr(eq + 1);
  switch (*type) {
    case ChannelType::Desktop:
      if (!value.empty()) return usage_error(spec_error(spec, "desktop takes no value (--notify desktop)"));
      break;
    case ChannelType::Exec: channel.command = value; break;
    case ChannelType::Email:
      return usage_error(spec_error(spec, "email needs a channel in --notify-config FILE (smtp_url, from, to, "
                                          "username, password_file): give --notify email=NAME"));
    default: channel.url = value; break;
  }
  if (auto valid = validate_channel(channel); !valid) return usage_error(spec_error(spec, valid.error().message));
  return channel;
}

core::Result<std::vector<Channel>> parse_channel_config(const std::string& yaml, const std::string& source,
                                                        const std::string& base_dir) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    return usage_error(source + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
  }
  ChannelReader reader(source, base_dir);
  if (root.IsNull()) return usage_error(source + ": empty (expected `channels:` with one entry per channel)");
  if (!root.IsMap()) return reader.fail(root, "(top level)", "expected a mapping with the key `channels`");
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it->first.Scalar() != "channels") return reader.fail(it->first, it->first.Scalar(), "unknown key (known: channels)");
  }
  const YAML::Node channels = root["channels"];
  if (!channels || !(channels.IsMap() || channels.IsSequence()) || channels.size() == 0) {
    return reader.fail(channels ? channels : root, "channels",
                       "expected a mapping of channel names to channels (or a list of channels with a name each)");
  }
  auto valid_name = [](const std::string& name) { return !name.empty() && name.find_first_of(" =/\t") == std::string::npos; };
  std::vector<Channel> out;
  if (channels.IsSequence()) {  // Alertmanager's receivers style: - name: NAME, type: ...
    std::size_t index = 0;
    for (const auto& item : channels) {
      const std::string where = "channels[" + std::to_string(index++) + "]";
      if (!item.IsMap()) return reader.fail(item, where, "expected a mapping (name, type, url, ...)");
      const YAML::Node name_node = item["name"];
      const std::string name = name_node && name_node.IsScalar() ? name_node.Scalar() : "";
      if (!valid_name(name)) return reader.fail(name_node ? name_node : item, where + ".name", "missing or not a channel name (letters, digits, - and _)");
      auto channel = reader.read(name, item, /*listed=*/true);
      if (!channel) return channel.error();
      out.push_back(std::move(*channel));
    }
  } else {
    for (auto it = channels.begin(); it != channels.end(); ++it) {
      const std::string name = it->first.IsScalar() ? it->first.Scalar() : "";
      if (!valid_name(name)) return reader.fail(it->first, "channels", "'" + name + "' is not a channel name (letters, digits, - and _)");
      auto channel = reader.read(name, it->second);
      if (!channel) return channel.error();
      out.push_back(std::move(*channel));
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (out[i].name == out[j].name) return usage_error(source + ": channels: the name '" + out[i].name + "' is used twice");
    }
  }
  return out;
}

core::Result<std::vector<Channel>> parse_channels(const std::vector<std::string>& notify_specs,
                                                  const std::string& config_file) {
  std::vector<Channel> configured;
  if (!config_file.empty()) {
    auto text = core::read_regular_file(config_file, "--notify-config", core::kMaxConfigFileBytes);
    if (!text) return usage_error(text.error().message);
    auto parsed = parse_channel_config(*text, config_file, std::filesystem::path(config_file).parent_path().string());
    if (!parsed) return parsed.error();
    configured = std::move(*parsed);
    if (notify_specs.empty()) return configured;
  }
  std::vector<Channel> out;
  for (const auto& spec : notify_specs) {
    const auto eq = spec.find('=');
    const std::string head = spec.substr(0, eq), value = eq == std::string::npos ? "" : spec.substr(eq + 1);
    // A config channel: NAME, or TYPE=NAME where NAME is one of the file's channels.
    auto named = [&](const std::string& name) {
      return std::find_if(configured.begin(), configured.end(), [&](const Channel& c) { return c.name == name; });
    };
    if (auto it = named(eq == std::string::npos ? head : value); it != configured.end()) {
      if (eq != std::string::npos && head != to_string(it->type)) {
        return usage_error("--notify " + spec + ": channel " + value + " is of type " + to_string(it->type) + ", not " + head);
      }
      out.push_back(*it);
    } else if (eq != std::string::npos && head == "email") {
      return usage_error("--notify " + spec + ": no email channel named '" + value + "'" +
                         (config_file.empty() ? " (define it in --notify-config FILE)" : " in " + config_file));
    } else {
      auto channel = parse_channel_spec(spec);
      if (!channel) return channel.error();
      out.push_back(std::move(*channel));
    }
  }
  std::set<std::string> names;
  for (auto& channel : out) {
    if (names.count(channel.name)) {
      // Two unnamed channels of one type (two webhooks): number them, webhook, webhook-2...
      int n = 2;
      while (names.count(channel.name + "-" + std::to_string(n))) ++n;
      channel.name += "-" + std::to_string(n);
    }
    names.insert(channel.name);
  }
  return out;
}

// For unit tests of the rate grammar.
core::Result<RateLimit> parse_rate_limit(const std::string& text) { return ChannelReader::parse_rate_limit(text); }

}  // namespace gpuwatch::notify
