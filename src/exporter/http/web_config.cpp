#include "exporter/http/web_config.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>

#include "core/bounded_read.hpp"

namespace gpuwatch::exporter {
namespace {

constexpr std::string_view kBcryptAlphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

// exporter-toolkit's extraHTTPHeaders: the only headers it lets a config add, with the values
// allowed where the header is an enumeration (none listed: any value; "" marks an unused slot).
struct AllowedHeader {
  std::string_view name;
  std::array<std::string_view, 2> values;
  bool any_value() const { return values[0].empty(); }
  bool allows(std::string_view value) const {
    return any_value() || (!value.empty() && (value == values[0] || value == values[1]));
  }
  std::string listed() const { return std::string(values[0]) + (values[1].empty() ? "" : ", " + std::string(values[1])); }
};
constexpr AllowedHeader kAllowedHeaders[] = {
    {"Strict-Transport-Security", {}},
    {"X-Content-Type-Options", {"nosniff", ""}},
    {"X-Frame-Options", {"deny", "sameorigin"}},
    {"X-XSS-Protection", {}},
    {"Content-Security-Policy", {}},
};

std::string join(std::initializer_list<std::string_view> names) {
  std::string out;
  for (auto name : names) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

bool contains(std::initializer_list<std::string_view> names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Walks the YAML tree; the first problem found is kept in error_ and ends the walk.
class Parser {
 public:
  Parser(const std::string& source, const std::string& base_dir) : source_(source), base_dir_(base_dir) {}

  core::Result<WebConfig> parse(std::string_view yaml) {
    YAML::Node root;
    try {
      root = YAML::Load(std::string(yaml));
    } catch (const YAML::Exception& e) {
      return core::make_error(source_ + ":" + std::to_string(e.mark.line + 1) + ": not valid YAML: " + e.msg);
    }
    WebConfig config;
    config.source = source_;
    if (root.IsNull()) return config;  // an empty file: plain HTTP, no authentication
    if (!root.IsMap()) return core::make_error(source_ + ": expected a mapping of keys at the top level");
    if (!check_keys(root, "", {"tls_server_config", "http_server_config", "basic_auth_users"}, {"rate_limit"}) ||
        !parse_tls(root["tls_server_config"], config) || !parse_http(root["http_server_config"], config) ||
        !parse_users(root["basic_auth_users"], config)) {
      return core::make_error(error_);
    }
    return config;
  }

 private:
  bool fail(const YAML::Node& at, const std::string& path, const std::string& problem) {
    // A key the file does not set has no line (and yaml-cpp throws for its Mark()).
    const int line = at.IsDefined() ? at.Mark().line : -1;
    error_ = source_ + (line >= 0 ? ":" + std::to_string(line + 1) : std::string()) + ": " + path + ": " + problem;
    return false;
  }

  // Every key of MAP is in KNOWN; keys in UNSUPPORTED get their own message.
  bool check_keys(const YAML::Node& map, const std::string& prefix, std::initializer_list<std::string_view> known,
                  std::initializer_list<std::string_view> unsupported) {
    for (auto it = map.begin(); it != map.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
      if (contains(unsupported, key))
        return fail(it->first, prefix + key, "not supported by gpuwatch (remove it; see docs/deploy.md)");
      if (!contains(known, key))
        return fail(it->first, prefix + key,
                    "unknown key" + std::string(prefix.empty() ? "" : " in " + prefix.substr(0, prefix.size() - 1)) +
                        " (known: " + join(known) + ")");
    }
    return true;
  }

  // A scalar (or null: empty string) at NODE.
  bool scalar(const YAML::Node& node, const std::string& path, std::string& out) {
    if (!node || node.IsNull()) {
      out.clear();
      return true;
    }
    if (!node.IsScalar()) return fail(node, path, "expected a string");
    out = node.Scalar();
    return true;
  }

  std::string resolve(const std::string& file) const {
    if (file.empty() || file.front() == '/' || base_dir_.empty()) return file;
    return (std::filesystem::path(base_dir_) / file).string();
  }

  // FILE_KEY (a file name) or INLINE_KEY (the PEM text itself), not both.
  bool pem(const YAML::Node& tls, const std::string& file_key, const std::string& inline_key, PemSource& out) {
    std::string file, text;
    if (!scalar(tls[file_key], "tls_server_config." + file_key, file) ||
        !scalar(tls[inline_key], "tls_server_config." + inline_key, text))
      return false;
    if (!file.empty() && !text.empty())
      return fail(tls[inline_key], "tls_server_config." + inline_key, "set " + file_key + " or " + inline_key + ", not both");
    out.key = file.empty() && !text.empty() ? inline_key : file_key;
    out.path = resolve(file);
    out.text = text;
    return true;
  }

  bool version(const YAML::Node& tls, const std::string& key, TlsVersion& out) {
    std::string text;
    if (!scalar(tls[key], "tls_server_config." + key, text)) return false;
    if (text.empty()) return true;
    if (text == "TLS10") out = TlsVersion::Tls10;
    else if (text == "TLS11") out = TlsVersion::Tls11;
    else if (text == "TLS12") out = TlsVersion::Tls12;
    else if (text == "TLS13") out = TlsVersion::Tls13;
    else return fail(tls[key], "tls_server_config." + key, "unknown TLS version '" + text + "' (known: TLS10, TLS11, TLS12, TLS13)");
    return true;
  }

  bool client_auth(const YAML::Node& tls, ClientAuth& out) {
    std::string text;
    if (!scalar(tls["client_auth_type"], "tls_server_config.client_auth_type", text)) return false;
    if (text.empty() || text == "NoClientCert") out = ClientAuth::NoClientCert;
    else if (text == "RequestClientCert") out = ClientAuth::RequestClientCert;
    else if (text == "RequireAnyClientCert" || text == "RequireClientCert") out = ClientAuth::RequireAnyClientCert;
    else if (text == "VerifyClientCertIfGiven") out = ClientAuth::VerifyClientCertIfGiven;
    else if (text == "RequireAndVerifyClientCert") out = ClientAuth::RequireAndVerifyClientCert;
    else
      return fail(tls["client_auth_type"], "tls_server_config.client_auth_type",
                  "unknown value '" + text + "' (known: NoClientCert, RequestClientCert, RequireAnyClientCert, "
                  "VerifyClientCertIfGiven, RequireAndVerifyClientCert)");
    return true;
  }

  bool parse_tls(const YAML::Node& tls, WebConfig& config) {
    if (!tls || tls.IsNull()) return true;
    if (!tls.IsMap()) return fail(tls, "tls_server_config", "expected a mapping");
    if (!check_keys(tls, "tls_server_config.",
                    {"cert_file", "key_file", "cert", "key", "key_password_file", "client_ca_file", "client_ca",
                     "client_auth_type", "min_version", "max_version", "prefer_server_cipher_suites"},
                    {"cipher_suites", "curve_preferences", "client_allowed_sans"}))
      return false;
    TlsServerConfig out;
    if (!pem(tls, "cert_file", "cert", out.cert) || !pem(tls, "key_file", "key", out.key) ||
        !pem(tls, "client_ca_file", "client_ca", out.client_ca) || !client_auth(tls, out.client_auth) ||
        !version(tls, "min_version", out.min_version) || !version(tls, "max_version", out.max_version))
      return false;
    std::string password_file;
    if (!scalar(tls["key_password_file"], "tls_server_config.key_password_file", password_file)) return false;
    if (!password_file.empty() && out.key.empty())
      return fail(tls["key_password_file"], "tls_server_config.key_password_file",
                  "needs key_file or key (it is the passphrase of that key)");
    out.key_password_file = resolve(password_file);
    if (const auto prefer = tls["prefer_server_cipher_suites"]; prefer && !prefer.IsNull()) {
      if (!prefer.IsScalar() || !YAML::convert<bool>::decode(prefer, out.prefer_server_cipher_suites))
        return fail(prefer, "tls_server_config.prefer_server_cipher_suites", "expected true or false");
    }
    // As exporter-toolkit: TLS is on when any of these is set, and then needs both halves.
    const bool enabled = !out.cert.empty() || !out.key.empty() || !out.client_ca.empty() ||
                         (tls["client_auth_type"] && !tls["client_auth_type"].IsNull());
    if (!enabled) return true;
    if (out.cert.empty()) return fail(tls, "tls_server_config", "missing one of cert_file or cert");
    if (out.key.empty()) return fail(tls, "tls_server_config", "missing one of key_file or key");
    if (out.min_version > out.max_version) {
      // One of them may be the default (min_version TLS12): name the one the file sets.
      if (const auto min = tls["min_version"]; min && !min.IsNull())
        return fail(min, "tls_server_config.min_version", "is above max_version");
      return fail(tls["max_version"], "tls_server_config.max_version",
                  "is below min_version (TLS12 when not set: set min_version too)");
    }
    const bool verifies = out.client_auth == ClientAuth::VerifyClientCertIfGiven ||
                          out.client_auth == ClientAuth::RequireAndVerifyClientCert;
    if (!out.client_ca.empty() && out.client_auth == ClientAuth::NoClientCert)
      return fail(tls, "tls_server_config.client_ca_file",
                  "a client CA is set but client_auth_type is NoClientCert (use RequireAndVerifyClientCert)");
    if (verifies && out.client_ca.empty())
      return fail(tls["client_auth_type"], "tls_server_config.client_auth_type",
                  "verifying client certificates needs client_ca_file (the CA that signs them)");
    config.tls = std::move(out);
    return true;
  }

  bool parse_http(const YAML::Node& http, WebConfig& config) {
    if (!http || http.IsNull()) return true;
    if (!http.IsMap()) return fail(http, "http_server_config", "expected a mapping");
    if (!check_keys(http, "http_server_config.", {"headers", "http2"}, {})) return false;
    if (const auto http2 = http["http2"]; http2 && !http2.IsNull()) {
      bool ignored = false;  // gpuwatch serves HTTP/1.1 only; either value is accepted
      if (!http2.IsScalar() || !YAML::convert<bool>::decode(http2, ignored))
        return fail(http2, "http_server_config.http2", "expected true or false");
    }
    const auto headers = http["headers"];
    if (!headers || headers.IsNull()) return true;
    if (!headers.IsMap()) return fail(headers, "http_server_config.headers", "expected a mapping of header: value");
    for (auto it = headers.begin(); it != headers.end(); ++it) {
      const std::string name = it->first.IsScalar() ? it->first.Scalar() : "?";
      const std::string path = "http_server_config.headers." + name;
      const auto allowed = std::find_if(std::begin(kAllowedHeaders), std::end(kAllowedHeaders),
                                        [&](const AllowedHeader& h) { return h.name == name; });
      if (allowed == std::end(kAllowedHeaders))
        return fail(it->first, path,
                    "this header can not be configured (allowed: Strict-Transport-Security, X-Content-Type-Options, "
                    "X-Frame-Options, X-XSS-Protection, Content-Security-Policy)");
      std::string value;
      if (!scalar(it->second, path, value)) return false;
      if (value.find_first_of("\r\n") != std::string::npos) return fail(it->second, path, "a line break in a header value");
      if (!allowed->allows(value)) return fail(it->second, path, "'" + value + "' is not one of: " + allowed->listed());
      if (!value.empty()) config.headers.emplace_back(name, value);  // the toolkit: blank = unset
    }
    return true;
  }

  bool parse_users(const YAML::Node& users, WebConfig& config) {
    if (!users || users.IsNull()) return true;
    if (!users.IsMap()) return fail(users, "basic_auth_users", "expected a mapping of user: bcrypt hash");
    for (auto it = users.begin(); it != users.end(); ++it) {
      if (!it->first.IsScalar()) return fail(it->first, "basic_auth_users", "a user name must be a string");
      const std::string user = it->first.Scalar();
      const std::string path = "basic_auth_users." + user;
      if (user.empty()) return fail(it->first, "basic_auth_users", "an empty user name");
      if (user.find(':') != std::string::npos)
        return fail(it->first, path, "a user name can not contain ':' (basic auth splits user:password there)");
      std::string hash;
      if (!scalar(it->second, path, hash)) return false;
      if (!is_bcrypt_hash(hash))  // never echo the value: it may be a plain password by mistake
        return fail(it->second, path,
                    "not a bcrypt hash (expected $2y$, $2b$ or $2a$, a cost 04-31 and 53 characters, e.g. from "
                    "`htpasswd -nBC 10 \"\" | tr -d ':\\n'`)");
      if (const int cost = bcrypt_cost(hash); cost > kMaxBcryptCost)
        return fail(it->second, path,
                    "bcrypt cost " + std::to_string(cost) + " is above gpuwatch's limit of " + std::to_string(kMaxBcryptCost) +
                        " (each wrong password would hold a core for " + (cost >= 20 ? "minutes or more" : "seconds") +
                        "); hash the password again with a cost of 10-" + std::to_string(kMaxBcryptCost) +
                        ", e.g. `htpasswd -nBC 12 \"\" | tr -d ':\\n'`");
      if (!config.basic_auth_users.emplace(user, hash).second) return fail(it->first, path, "listed twice");
    }
    return true;
  }

  std::string source_;
  std::string base_dir_;
  std::string error_;
};

}  // namespace

bool is_bcrypt_hash(std::string_view text) {
  if (text.size() != 60 || text[0] != '$' || text[1] != '2' || text[3] != '$' || text[6] != '$') return false;
  if (text[2] != 'a' && text[2] != 'b' && text[2] != 'y') return false;
  if (text[4] < '0' || text[4] > '9' || text[5] < '0' || text[5] > '9') return false;
  const int cost = (text[4] - '0') * 10 + (text[5] - '0');
  if (cost < 4 || cost > 31) return false;
  return text.substr(7).find_first_not_of(kBcryptAlphabet) == std::string_view::npos;
}

int bcrypt_cost(std::string_view hash) {
  if (hash.size() < 6) return 0;
  return (hash[4] - '0') * 10 + (hash[5] - '0');
}

core::Result<WebConfig> parse_web_config(std::string_view yaml, const std::string& source,
                                         const std::string& base_dir) {
  return Parser(source, base_dir).parse(yaml);
}

core::Result<WebConfig> load_web_config(const std::string& path) {
  // A regular file of at most 1 MiB (core/bounded_read.hpp): a FIFO or /dev/zero is refused at once.
  auto text = core::read_regular_file(path, "web config file", core::kMaxConfigFileBytes);
  if (!text) return text.error();
  std::string dir = std::filesystem::path(path).parent_path().string();
  return parse_web_config(*text, path, dir.empty() ? "." : dir);
}

}  // namespace gpuwatch::exporter
