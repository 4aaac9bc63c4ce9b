#include "remote/remote_config.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string_view>
#include <utility>

#include "core/bounded_read.hpp"
#include "core/key_password_file.hpp"

namespace gpuwatch::remote {
namespace {

class RemoteConfigParser {
 public:
  explicit RemoteConfigParser(std::string source) : source_(std::move(source)) {}

  core::Result<std::vector<RemoteEndpoint>> parse(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      return core::make_error(source_ + ": not valid YAML: " + e.msg + " (line " + std::to_string(e.mark.line + 1) + ")");
    }
    if (!root.IsMap()) return core::make_error(source_ + ": expected a mapping with a 'hosts' list");
    if (auto bad = unknown(root, "", {"hosts"})) return core::make_error(*bad);
    const YAML::Node hosts = root["hosts"];
    if (!hosts || !hosts.IsSequence() || hosts.size() == 0) {
      return core::make_error(source_ + ": 'hosts' must be a non-empty list of {url: ...}");
    }
    std::vector<RemoteEndpoint> out;
    for (std::size_t i = 0; i < hosts.size(); ++i) {
      auto endpoint = host(hosts[i], "hosts[" + std::to_string(i) + "]");
      if (!endpoint) return endpoint.error();
      out.push_back(std::move(*endpoint));
    }
    return out;
  }

 private:
  std::string where(const YAML::Node& node, const std::string& path) const {
    return source_ + ":" + std::to_string(node.Mark().line + 1) + ": " + path;
  }

  std::optional<std::string> unknown(const YAML::Node& map, const std::string& path,
                                     std::initializer_list<std::string_view> known) const {
    for (const auto& item : map) {
      const auto key = item.first.as<std::string>();
      bool ok = false;
      for (auto k : known) ok = ok || key == k;
      if (!ok) {
        std::string list;
        for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
        return where(item.first, path.empty() ? key : path + "." + key) + ": unknown key (known: " + list + ")";
      }
    }
    return std::nullopt;
  }

  core::Result<std::string> text(const YAML::Node& map, const std::string& key, const std::string& path) const {
    const YAML::Node v = map[key];
    if (!v) return std::string();
    if (!v.IsScalar()) return core::make_error(where(v, path + "." + key) + ": expected a string");
    return v.as<std::string>();
  }

  std::string relative(const std::string& file) const {
    if (file.empty() || std::filesystem::path(file).is_absolute()) return file;
    return (std::filesystem::path(source_).parent_path() / file).string();
  }

  core::Result<RemoteEndpoint> host(const YAML::Node& node, const std::string& path) {
    if (!node.IsMap()) return core::make_error(where(node, path) + ": expected {url: ...}");
    if (auto bad = unknown(node, path, {"url", "basic_auth", "tls_config"})) return core::make_error(*bad);
    auto url = text(node, "url", path);
    if (!url) return url.error();
    if (url->empty()) return core::make_error(where(node, path) + ": 'url' is required");
    auto endpoint = parse_remote_url(*url);
    if (!endpoint) return core::make_error(where(node["url"], path + ".url") + ": " + endpoint.error().message);
    if (const YAML::Node auth = node["basic_auth"]) {
      const std::string p = path + ".basic_auth";
      if (!auth.IsMap()) return core::make_error(where(auth, p) + ": expected {username, password_file}");
      if (auto bad = unknown(auth, p, {"username", "password", "password_file"})) return core::make_error(*bad);
      auto user = text(auth, "username", p);
      auto password = text(auth, "password", p);
      auto password_file = text(auth, "password_file", p);
      if (!user) return user.error();
      if (!password) return password.error();
      if (!password_file) return password_file.error();
      if (user->empty()) return core::make_error(where(auth, p) + ": 'username' is required");
      if (!password->empty() && !password_file->empty()) {
        return core::make_error(where(auth, p) + ": give 'password' or 'password_file', not both");
      }
      endpoint->user = *user;
      endpoint->password = *password;
      if (!password_file->empty()) {
        const std::string file = relative(*password_file);
        // A regular file of at most 64 KiB (core/bounded_read.hpp): a FIFO or /dev/zero is refused at once.
        auto read = core::read_regular_file(file, "password_file", core::kMaxSecretFileBytes);
        if (!read) return core::make_error(where(auth["password_file"], p + ".password_file") + ": " + read.error().message);
        std::string secret = std::move(*read);
        while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
        endpoint->password = secret;
      }
    }
    if (const YAML::Node tls = node["tls_config"]) {
      const std::string p = path + ".tls_config";
      if (!tls.IsMap()) return core::make_error(where(tls, p) + ": expected {ca_file, cert_file, key_file}");
      if (auto bad = unknown(tls, p, {"ca_file", "cert_file", "key_file", "insecure_skip_verify"})) {
        return core::make_error(*bad);
      }
      if (endpoint->scheme != "https") return core::make_error(where(tls, p) + ": the url is not https");
      auto ca = text(tls, "ca_file", p);
      auto cert = text(tls, "cert_file", p);
      auto key = text(tls, "key_file", p);
      if (!ca) return ca.error();
      if (!cert) return cert.error();
      if (!key) return key.error();
      if (cert->empty() != key->empty()) return core::make_error(where(tls, p) + ": cert_file and key_file go together");
      // The remote module opens these by path: each must be a regular file of at most 1 MiB.
      for (const auto& [name, f] : {std::pair<const char*, const std::string*>{"ca_file", &*ca}, {"cert_file", &*cert}, {"key_file", &*key}}) {
        if (f->empty()) continue;
        if (auto regular = core::check_regular_file(relative(*f), name); !regular) {
          return core::make_error(where(tls[name], p + "." + name) + ": " + regular.error().message);
        }
      }
      // cpp-httplib 0.11 takes no key passphrase (OpenSSL would ask for it on the terminal top
      // draws on): an encrypted key is refused here; key_password_file is remote-write's and notify's.
      if (auto pem = key->empty() ? core::Result<std::string>(std::string())
                                  : core::read_regular_file(relative(*key), "key_file", core::kMaxConfigFileBytes);
          pem && core::is_encrypted_pem_key(*pem)) {
        return core::make_error(where(tls["key_file"], p + ".key_file") + ": '" + relative(*key) +
                                "' is encrypted: top --connect takes an unencrypted key only (no key_password_file)");
      }
      endpoint->ca_file = relative(*ca);
      endpoint->cert_file = relative(*cert);
      endpoint->key_file = relative(*key);
      if (const YAML::Node skip = tls["insecure_skip_verify"]) {
        bool value = false;
        if (!skip.IsScalar() || !YAML::convert<bool>::decode(skip, value)) {
          return core::make_error(where(skip, p + ".insecure_skip_verify") + ": expected true or false");
        }
        endpoint->insecure_skip_verify = value;
      }
    }
    return *endpoint;
  }

  std::string source_;
};

}  // namespace

core::Result<std::vector<RemoteEndpoint>> parse_remote_config(const std::string& text, const std::string& source) {
  return RemoteConfigParser(source).parse(text);
}

core::Result<std::vector<RemoteEndpoint>> load_remote_config(const std::string& path) {
  auto text = core::read_regular_file(path, "--connect-config", core::kMaxConfigFileBytes);
  if (!text) return text.error();
  return parse_remote_config(*text, path);
}

}  // namespace gpuwatch::remote
