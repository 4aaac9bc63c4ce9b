#pragma once
// The web configuration file of `gpuwatch serve --web-config-file FILE`, in the Prometheus
// exporter-toolkit format (docs/deploy.md), so a file written for node_exporter works here:
//   tls_server_config:  cert_file/key_file (or inline cert/key), key_password_file (gpuwatch's
//                       own: an encrypted key's passphrase), client_auth_type,
//                       client_ca_file (or inline client_ca), min_version, max_version,
//                       prefer_server_cipher_suites
//   http_server_config: headers (the toolkit's five security headers), http2 (accepted, ignored:
//                       gpuwatch speaks HTTP/1.1 only)
//   basic_auth_users:   user: bcrypt hash ($2a$, $2b$, $2y$)
// Keys the toolkit has but gpuwatch does not implement (cipher_suites, curve_preferences,
// client_allowed_sans, rate_limit) and unknown keys are errors, never silently ignored.
// Relative file names are relative to the config file's directory (as in exporter-toolkit).
// The file is read once, at start.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.hpp"

namespace gpuwatch::exporter {

// Go's crypto/tls ClientAuthType, by the toolkit's names.
enum class ClientAuth {
  NoClientCert,                // the default
  RequestClientCert,           // asked for, neither required nor verified
  RequireAnyClientCert,        // required, not verified
  VerifyClientCertIfGiven,     // verified when sent
  RequireAndVerifyClientCert,  // required and verified against the client CA: authentication
};

enum class TlsVersion { Tls10, Tls11, Tls12, Tls13 };

// A PEM document: from a file (path, already made absolute) or inline in the config.
struct PemSource {
  std::string key;   // the config key it came from ("cert_file", "cert", ...), for messages
  std::string path;  // set when it is a file
  std::string text;  // set when it is inline
  bool empty() const { return path.empty() && text.empty(); }
};

struct TlsServerConfig {
  PemSource cert;
  PemSource key;
  // key_password_file (a gpuwatch addition to the toolkit's format): a file holding the passphrase
  // of an encrypted key, path made absolute; read when the context is built (tls_context.hpp,
  // core/key_password_file.hpp). "" = the key is not encrypted.
  std::string key_password_file;
  PemSource client_ca;  // empty: none
  ClientAuth client_auth = ClientAuth::NoClientCert;
  TlsVersion min_version = TlsVersion::Tls12;
  TlsVersion max_version = TlsVersion::Tls13;
  bool prefer_server_cipher_suites = true;
};

struct WebConfig {
  std::string source;                 // the file name, for messages
  std::optional<TlsServerConfig> tls;  // nullopt: plain HTTP
  std::map<std::string, std::string> basic_auth_users;  // user -> bcrypt hash; empty: no basic auth
  std::vector<std::pair<std::string, std::string>> headers;  // added to every response

  // True when every request must prove who it comes from (basic auth, or a client
  // certificate verified against client_ca): what a non-loopback --listen requires.
  bool requires_authentication() const {
    return !basic_auth_users.empty() || (tls && tls->client_auth == ClientAuth::RequireAndVerifyClientCert);
  }
};

// "$2a$", "$2b$" or "$2y$", a two-digit cost 04-31, "$", 53 characters of bcrypt's base64.
bool is_bcrypt_hash(std::string_view text);

// The highest bcrypt cost a web config may use (docs/security.md). Each step doubles the
// work: cost 12 (the Prometheus guide's, Python's bcrypt default) takes ~0.25 s per wrong
// password, 14 about 1 s, 31 about three days. exporter-toolkit sets no bound (Go's bcrypt
// takes up to 31); gpuwatch refuses a higher cost at load, so no request can hold a core
// for longer than about a second.
inline constexpr int kMaxBcryptCost = 14;

// The cost of a hash that is_bcrypt_hash accepts (the two digits after "$2y$").
int bcrypt_cost(std::string_view hash);

// Parses YAML (the file's text) without touching the file system. SOURCE names the file in
// messages; relative file names are joined to BASE_DIR. Errors read
// "SOURCE:LINE: tls_server_config.min_version: unknown TLS version 'TLS14' (known: ...)".
core::Result<WebConfig> parse_web_config(std::string_view yaml, const std::string& source,
                                         const std::string& base_dir);

// Reads and parses PATH; relative file names in it are relative to PATH's directory.
// Does not open the certificate files (check_tls_config in tls_context.hpp does).
core::Result<WebConfig> load_web_config(const std::string& path);

}  // namespace gpuwatch::exporter
