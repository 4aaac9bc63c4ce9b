#include "push/push_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "core/bounded_read.hpp"
#include "core/key_password_file.hpp"
#include "core/time_spec.hpp"

namespace gpuwatch::push {
namespace {

namespace fs = std::filesystem;

class PushConfigParser {
 public:
  explicit PushConfigParser(std::string source) : source_(std::move(source)) {}

  core::Result<void> parse(const std::string& text, PushConfig& config) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      return core::make_error(source_ + ": not valid YAML: " + e.msg + " (line " + std::to_string(e.mark.line + 1) + ")");
    }
    if (root.IsNull()) return {};
    if (!root.IsMap()) return core::make_error(source_ + ": expected a mapping");
    if (auto r = known(root, "", {"external_labels", "basic_auth", "bearer_token_file", "tls_config", "remote_timeout", "buffer"}); !r) return r;
    if (const auto labels = root["external_labels"]) {
      if (!labels.IsMap()) return fail(labels, "external_labels", "expected a mapping of label: value");
      for (const auto& item : labels) {
        const auto name = item.first.as<std::string>();
        if (!item.second.IsScalar()) return fail(item.second, "external_labels." + name, "expected a string");
        if (name.empty() || name.starts_with("__")) return fail(item.first, "external_labels." + name, "not a valid label name");
        config.external_labels.push_back({name, item.second.as<std::string>()});
      }
    }
    if (const auto auth = root["basic_auth"]) {
      if (!auth.IsMap()) return fail(auth, "basic_auth", "expected {username, password_file}");
      if (auto r = known(auth, "basic_auth", {"username", "password_file"}); !r) return r;
      if (auto r = scalar(auth, "username", "basic_auth", config.username); !r) return r;
      std::string file;
      if (auto r = scalar(auth, "password_file", "basic_auth", file); !r) return r;
      if (config.username.empty() || file.empty()) return fail(auth, "basic_auth", "needs username and password_file");
      if (auto r = secret(auth["password_file"], "basic_auth.password_file", file, config.password); !r) return r;
    }
    if (const auto token = root["bearer_token_file"]) {
      if (!config.username.empty()) return fail(token, "bearer_token_file", "set basic_auth or bearer_token_file, not both");
      std::string file;
      if (auto r = scalar(root, "bearer_token_file", "", file); !r) return r;
      if (auto r = secret(token, "bearer_token_file", file, config.bearer_token); !r) return r;
    }
    if (const auto tls = root["tls_config"]) {
      if (!tls.IsMap()) {
        return fail(tls, "tls_config", "expected {ca_file, cert_file, key_file, key_password_file, insecure_skip_verify}");
      }
      if (auto r = known(tls, "tls_config", {"ca_file", "cert_file", "key_file", "key_password_file", "insecure_skip_verify"}); !r)
        return r;
      // curl opens each by path at every send: here each must be a readable regular file.
      for (auto [key, out] : {std::pair{"ca_file", &config.tls.ca_file}, std::pair{"cert_file", &config.tls.cert_file},
                              std::pair{"key_file", &config.tls.key_file}}) {
        if (auto r = scalar(tls, key, "tls_config", *out); !r) return r;
        if (out->empty()) continue;
        *out = relative(*out);
        const std::string name = std::string("tls_config.") + key;
        if (auto ok = core::check_regular_file(*out, name); !ok) return fail(tls[key], name, ok.error().message);
      }
      if (config.tls.cert_file.empty() != config.tls.key_file.empty()) {
        const bool has_cert = !config.tls.cert_file.empty();
        return fail(tls[has_cert ? "cert_file" : "key_file"], has_cert ? "tls_config.cert_file" : "tls_config.key_file",
                    has_cert ? "needs tls_config.key_file too (a client certificate is sent with its key)"
                             : "needs tls_config.cert_file too (a client key is sent with its certificate)");
      }
      if (auto r = key_password(tls, config.tls); !r) return r;
      if (const auto skip = tls["insecure_skip_verify"]) {
        try {
          config.tls.insecure_skip_verify = skip.as<bool>();
        } catch (const YAML::Exception&) {
          return fail(skip, "tls_config.insecure_skip_verify", "expected true or false");
        }
      }
    }
    if (const auto timeout = root["remote_timeout"]) {
      std::string text_value;
      if (auto r = scalar(root, "remote_timeout", "", text_value); !r) return r;
      auto parsed = core::parse_duration(text_value);
      if (!parsed) return fail(timeout, "remote_timeout", parsed.error().message);
      config.timeout = *parsed;
    }
    if (const auto buffer = root["buffer"]) {
      if (!buffer.IsMap()) return fail(buffer, "buffer", "expected {dir, max_size, max_age}");
      if (auto r = known(buffer, "buffer", {"dir", "max_size", "max_age"}); !r) return r;
      std::string dir, size, age;
      if (auto r = scalar(buffer, "dir", "buffer", dir); !r) return r;
      if (auto r = scalar(buffer, "max_size", "buffer", size); !r) return r;
      if (auto r = scalar(buffer, "max_age", "buffer", age); !r) return r;
      if (!dir.empty()) config.buffer_dir = relative(dir);
      if (!size.empty()) {
        auto bytes = parse_byte_size(size);
        if (!bytes) return fail(buffer["max_size"], "buffer.max_size", bytes.error().message);
        config.limits.max_bytes = *bytes;
      }
      if (!age.empty()) {
        auto parsed = core::parse_duration(age);
        if (!parsed) return fail(buffer["max_age"], "buffer.max_age", parsed.error().message);
        config.limits.max_age = *parsed;
      }
    }
    return {};
  }

 private:
  core::Error fail(const YAML::Node& node, const std::string& key, const std::string& problem) const {
    return core::make_error(source_ + ":" + std::to_string(node.Mark().line + 1) + ": " + key + ": " + problem);
  }

  core::Result<void> known(const YAML::Node& map, const std::string& path, std::initializer_list<std::string_view> keys) const {
    for (const auto& item : map) {
      const auto key = item.first.as<std::string>();
      bool ok = false;
      for (auto k : keys) ok = ok || key == k;
      if (!ok) {
        std::string list;
        for (auto k : keys) list += (list.empty() ? "" : ", ") + std::string(k);
        return fail(item.first, path.empty() ? key : path + "." + key, "unknown key (known: " + list + ")");
      }
    }
    return {};
  }

  core::Result<void> scalar(const YAML::Node& map, const std::string& key, const std::string& path, std::string& out) const {
    const YAML::Node v = map[key];
    if (!v) return {};
    if (!v.IsScalar()) return fail(v, path.empty() ? key : path + "." + key, "expected a string");
    out = v.as<std::string>();
    return {};
  }

  core::Result<void> secret(const YAML::Node& node, const std::string& key, const std::string& file, std::string& out) const {
    auto text = core::read_regular_file(relative(file), key, core::kMaxSecretFileBytes);
    if (!text) return fail(node, key, text.error().message);
    while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
    if (text->empty()) return fail(node, key, relative(file) + " is empty");
    out = std::move(*text);
    return {};
  }

  // tls_config.key_password_file: the passphrase of an encrypted key_file (only with it), read and
  // checked here (core/key_password_file.hpp); an encrypted key_file without it is an error.
  core::Result<void> key_password(const YAML::Node& tls, notify::TlsOptions& out) const {
    std::string file;
    if (auto r = scalar(tls, "key_password_file", "tls_config", file); !r) return r;
    const std::string key = file.empty() ? "key_file" : "key_password_file";
    auto password = core::key_password_for(out.key_file, relative(file), "tls_config.key_file", "tls_config.key_password_file");
    if (!password) return fail(tls[key], "tls_config." + key, password.error().message);
    out.key_password = std::move(*password);
    return {};
  }

  std::string relative(const std::string& file) const {
    if (file.empty() || fs::path(file).is_absolute()) return file;
    return (fs::path(source_).parent_path() / file).string();
  }

  std::string source_;
};

}  // namespace

core::Result<std::uintmax_t> parse_byte_size(const std::string& text) {
  std::size_t used = 0;
  double number = 0;
  try {
    number = std::stod(text, &used);
  } catch (const std::exception&) {
    return core::make_error("'" + text + "' is not a size (e.g. 256MiB, 1GiB, 500MB)");
  }
  const std::string unit = text.substr(used);
  double scale = 0;
  for (const auto& [name, factor] : std::initializer_list<std::pair<std::string_view, double>>{
           {"", 1}, {"B", 1}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}}) {
    if (unit == name) scale = factor;
  }
  if (scale == 0 || number <= 0) return core::make_error("'" + text + "' is not a size (e.g. 256MiB, 1GiB, 500MB)");
  return static_cast<std::uintmax_t>(number * scale);
}

core::Result<PushConfig> parse_push_config(const std::string& text, const std::string& source) {
  PushConfig config;
  PushConfigParser parser(source);
  if (auto r = parser.parse(text, config); !r) return r.error();
  return config;
}

core::Result<PushConfig> load_push_config(const std::string& url, const std::string& path) {
  if (!url.starts_with("http://") && !url.starts_with("https://")) {
    return core::make_error("--remote-write: expected an http:// or https:// URL (e.g. http://prometheus:9090/api/v1/write)");
  }
  PushConfig config;
  if (!path.empty()) {
    auto text = core::read_regular_file(path, "--remote-write-config", core::kMaxConfigFileBytes);
    if (!text) return text.error();
    auto parsed = parse_push_config(*text, path);
    if (!parsed) return parsed.error();
    config = std::move(*parsed);
  }
  config.url = url;
  return config;
}

fs::path default_buffer_dir(const std::string& db_path) {
  if (!db_path.empty()) return fs::path(db_path).parent_path() / "remote-write";
  if (const char* state = std::getenv("STATE_DIRECTORY"); state && *state) return fs::path(state) / "remote-write";
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg) return fs::path(xdg) / "gpuwatch" / "remote-write";
  const char* home = std::getenv("HOME");
  return fs::path(home && *home ? home : "/tmp") / ".local" / "state" / "gpuwatch" / "remote-write";
}

}  // namespace gpuwatch::push
