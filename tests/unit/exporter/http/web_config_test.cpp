#include "exporter/http/web_config.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpuwatch::exporter {
namespace web_config_test {  // this test file's helpers (unity builds: no clash with another file's)

// A cost-04 hash of "s3cret" (libxcrypt), and a cost-10 one from exporter-toolkit's docs.
constexpr const char* kHash = "$2b$04$hQqdQ3bgBEhrjtKPkNSq8O5PPYGCumiJzEMmFcljlJca2K5FufT/q";
constexpr const char* kToolkitHash = "$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze";

core::Result<WebConfig> parse(const std::string& yaml) { return parse_web_config(yaml, "web.yml", "/etc/gpuwatch"); }

// The error message of a config that must be refused.
std::string error_of(const std::string& yaml) {
  auto config = parse(yaml);
  EXPECT_FALSE(config) << yaml;
  return config ? std::string() : config.error().message;
}

TEST(BcryptHash, CostIsBoundedAtLoad) {
  EXPECT_EQ(bcrypt_cost(kHash), 4);
  EXPECT_EQ(bcrypt_cost(kToolkitHash), 10);
  EXPECT_EQ(bcrypt_cost("$2y$31$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"), 31);
  // The bound itself loads; one above is refused at the hash's line, naming the key.
  EXPECT_TRUE(parse("basic_auth_users:\n  alice: $2y$14$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze\n"));
  const std::string refused =
      error_of("basic_auth_users:\n  bob: " + std::string(kHash) + "\n  alice: $2y$15$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze\n");
  EXPECT_EQ(refused.rfind("web.yml:3: basic_auth_users.alice: bcrypt cost 15 is above gpuwatch's limit of 14", 0), 0u)
      << refused;
  const std::string huge = error_of("basic_auth_users:\n  alice: $2y$31$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze\n");
  EXPECT_NE(huge.find("web.yml:2: basic_auth_users.alice: bcrypt cost 31"), std::string::npos) << huge;
  EXPECT_EQ(huge.find("mDwo"), std::string::npos) << "the hash is never echoed";
}

TEST(BcryptHash, Format) {
  EXPECT_TRUE(is_bcrypt_hash(kHash));
  EXPECT_TRUE(is_bcrypt_hash(kToolkitHash));
  EXPECT_TRUE(is_bcrypt_hash("$2a$31$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"));
  EXPECT_FALSE(is_bcrypt_hash("s3cret"));
  EXPECT_FALSE(is_bcrypt_hash(""));
  EXPECT_FALSE(is_bcrypt_hash("$2x$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"));  // unknown variant
  EXPECT_FALSE(is_bcrypt_hash("$2y$03$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"));  // cost below 4
  EXPECT_FALSE(is_bcrypt_hash("$2y$32$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPze"));  // cost above 31
  EXPECT_FALSE(is_bcrypt_hash("$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJPz"));   // one short
  EXPECT_FALSE(is_bcrypt_hash("$2y$10$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprsJP+e"));  // not bcrypt base64
  EXPECT_FALSE(is_bcrypt_hash("$6$saltsalt$mDwo.lAisC94iLAyP81MCesa29IzH37oigHC/42V2pdJlUprs"));  // sha512-crypt
}

TEST(WebConfig, EmptyFileIsPlainHttpWithoutAuth) {
  auto config = parse("");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_FALSE(config->tls);
  EXPECT_TRUE(config->basic_auth_users.empty());
  EXPECT_FALSE(config->requires_authentication());
  EXPECT_EQ(config->source, "web.yml");
}

TEST(WebConfig, FullToolkitExample) {
  auto config = parse(std::string(R"(
tls_server_config:
  cert_file: server.crt
  key_file: /abs/server.key
  client_auth_type: RequireAndVerifyClientCert
  client_ca_file: ca/clients.pem
  min_version: TLS13
  prefer_server_cipher_suites: false
http_server_config:
  http2: false
  headers:
    X-Frame-Options: deny
    X-Content-Type-Options: nosniff
    Strict-Transport-Security: max-age=31536000
    X-XSS-Protection: ""
basic_auth_users:
  alice: )") + kToolkitHash + "\n  bob: '" + kHash + "'\n");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_TRUE(config->tls);
  const TlsServerConfig& tls = *config->tls;
  // Relative names are relative to the config file's directory, as in exporter-toolkit.
  EXPECT_EQ(tls.cert.path, "/etc/gpuwatch/server.crt");
  EXPECT_EQ(tls.cert.key, "cert_file");
  EXPECT_EQ(tls.key.path, "/abs/server.key");
  EXPECT_EQ(tls.client_ca.path, "/etc/gpuwatch/ca/clients.pem");
  EXPECT_EQ(tls.client_auth, ClientAuth::RequireAndVerifyClientCert);
  EXPECT_EQ(tls.min_version, TlsVersion::Tls13);
  EXPECT_EQ(tls.max_version, TlsVersion::Tls13);
  EXPECT_FALSE(tls.prefer_server_cipher_suites);
  ASSERT_EQ(config->basic_auth_users.size(), 2u);
  EXPECT_EQ(config->basic_auth_users.at("alice"), kToolkitHash);
  EXPECT_EQ(config->basic_auth_users.at("bob"), kHash);
  // A blank header is unset, as in the toolkit.
  ASSERT_EQ(config->headers.size(), 3u);
  EXPECT_EQ(config->headers[0].first, "X-Frame-Options");
  EXPECT_EQ(config->headers[0].second, "deny");
  EXPECT_TRUE(config->requires_authentication());
}

TEST(WebConfig, DefaultsAndInlinePem) {
  auto config = parse("tls_server_config:\n  cert: |\n    -----BEGIN CERTIFICATE-----\n    AAAA\n"
                      "    -----END CERTIFICATE-----\n  key_file: k.pem\n");
  ASSERT_TRUE(config) << config.error().message;
  ASSERT_TRUE(config->tls);
  EXPECT_EQ(config->tls->cert.key, "cert");
  EXPECT_TRUE(config->tls->cert.path.empty());
  EXPECT_NE(config->tls->cert.text.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_EQ(config->tls->client_auth, ClientAuth::NoClientCert);
  EXPECT_EQ(config->tls->min_version, TlsVersion::Tls12);
  EXPECT_TRUE(config->tls->prefer_server_cipher_suites);
  EXPECT_TRUE(config->tls->client_ca.empty());
  // TLS alone authenticates nobody: a public --listen still needs users or client certificates.
  EXPECT_FALSE(config->requires_authentication());
}

TEST(WebConfig, UnverifiedClientCertsAreNotAuthentication) {
  auto config = parse("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAnyClientCert\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->tls->client_auth, ClientAuth::RequireAnyClientCert);
  EXPECT_FALSE(config->requires_authentication());
}

TEST(WebConfig, OnlyUsersNoTls) {
  auto config = parse(std::string("basic_auth_users:\n  alice: ") + kHash + "\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_FALSE(config->tls);
  EXPECT_TRUE(config->requires_authentication());
  // An empty tls_server_config is plain HTTP, as in the toolkit.
  auto empty_tls = parse("tls_server_config: {}\n");
  ASSERT_TRUE(empty_tls);
  EXPECT_FALSE(empty_tls->tls);
}

TEST(WebConfig, ErrorsNameTheFileLineKeyAndProblem) {
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS14\n"),
            "web.yml:4: tls_server_config.min_version: unknown TLS version 'TLS14' (known: TLS10, TLS11, TLS12, TLS13)");
  auto unknown = error_of("tls_server_config:\n  cert_file: a\n  keyfile: b\n");
  EXPECT_NE(unknown.find("web.yml:3: tls_server_config.keyfile: unknown key in tls_server_config"), std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("key_file"), std::string::npos) << unknown;  // lists the known keys
  EXPECT_NE(error_of("basic_auth_user:\n  a: b\n").find("web.yml:1: basic_auth_user: unknown key"), std::string::npos);
  EXPECT_NE(error_of("tls_server_config:\n  cert_file: a\n").find("missing one of key_file or key"), std::string::npos);
  EXPECT_NE(error_of("tls_server_config:\n  key_file: a\n").find("missing one of cert_file or cert"), std::string::npos);
  EXPECT_NE(error_of("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Sometimes\n")
                .find("tls_server_config.client_auth_type: unknown value 'Sometimes'"),
            std::string::npos);
  EXPECT_NE(error_of("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: ca\n")
                .find("client_auth_type is NoClientCert"),
            std::string::npos);
  EXPECT_NE(error_of("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n")
                .find("needs client_ca_file"),
            std::string::npos);
  EXPECT_NE(error_of("tls_server_config:\n  cert_file: a\n  cert: x\n  key_file: b\n").find("not both"), std::string::npos);
  EXPECT_NE(error_of("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS13\n  max_version: TLS12\n")
                .find("is above max_version"),
            std::string::npos);
}

TEST(WebConfig, WrongTypes) {
  EXPECT_NE(error_of("- a\n- b\n").find("expected a mapping"), std::string::npos);
  EXPECT_NE(error_of("tls_server_config: yes\n").find("tls_server_config: expected a mapping"), std::string::npos);
  EXPECT_NE(error_of("tls_server_config:\n  cert_file: [a, b]\n  key_file: c\n").find("tls_server_config.cert_file: expected a string"),
            std::string::npos);
  EXPECT_NE(error_of("basic_auth_users:\n  - alice\n").find("basic_auth_users: expected a mapping"), std::string::npos);
  EXPECT_NE(error_of("tls_server_config:\n  cert_file: a\n  key_file: b\n  prefer_server_cipher_suites: maybe\n")
                .find("expected true or false"),
            std::string::npos);
  EXPECT_NE(error_of("http_server_config:\n  http2: 7\n").find("http_server_config.http2: expected true or false"),
            std::string::npos);
  EXPECT_NE(error_of("tls_server_config: [\n").find("web.yml:"), std::string::npos);  // bad YAML, with a line
  EXPECT_NE(error_of("tls_server_config: [\n").find("not valid YAML"), std::string::npos);
}

TEST(WebConfig, BadUsers) {
  const std::string plain = error_of("basic_auth_users:\n  alice: s3cret\n");
  EXPECT_NE(plain.find("web.yml:2: basic_auth_users.alice: not a bcrypt hash"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("s3cret"), std::string::npos) << "never echo what may be a password: " << plain;
  EXPECT_NE(error_of(std::string("basic_auth_users:\n  'a:b': ") + kHash + "\n").find("can not contain ':'"),
            std::string::npos);
  EXPECT_NE(error_of("basic_auth_users:\n  alice:\n").find("not a bcrypt hash"), std::string::npos);
  EXPECT_NE(error_of(std::string("basic_auth_users:\n  alice: ") + kHash + "\n  alice: " + kHash + "\n")
                .find("listed twice"),
            std::string::npos);
}

TEST(WebConfig, HeadersAreTheToolkitsFive) {
  EXPECT_NE(error_of("http_server_config:\n  headers:\n    Server: gpuwatch\n").find("can not be configured"),
            std::string::npos);
  EXPECT_NE(error_of("http_server_config:\n  headers:\n    X-Frame-Options: allow\n")
                .find("http_server_config.headers.X-Frame-Options: 'allow' is not one of: deny, sameorigin"),
            std::string::npos);
  EXPECT_NE(error_of("http_server_config:\n  headers:\n    X-Content-Type-Options: sniff\n").find("nosniff"),
            std::string::npos);
  EXPECT_NE(error_of("http_server_config:\n  headers:\n    Content-Security-Policy: \"a\\r\\nSet-Cookie: x\"\n")
                .find("line break"),
            std::string::npos);
}

TEST(WebConfig, ToolkitKeysGpuwatchLacksAreRefusedNotIgnored) {
  for (const char* yaml : {"rate_limit:\n  interval: 1s\n  burst: 20\n",
                           "tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n",
                           "tls_server_config:\n  cert_file: a\n  key_file: b\n  curve_preferences: [X25519]\n",
                           "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_allowed_sans: [x]\n"}) {
    EXPECT_NE(error_of(yaml).find("not supported by gpuwatch"), std::string::npos) << yaml;
  }
}

// key_password_file (gpuwatch's own key): resolved like key_file, only with a key; the file is
// read when the TLS context is built (tls_context_test.cpp), not here.
TEST(WebConfig, KeyPasswordFileIsResolvedAndNeedsAKey) {
  auto config = parse("tls_server_config:\n  cert_file: a\n  key_file: b\n  key_password_file: b.pass\n");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->tls->key_password_file, "/etc/gpuwatch/b.pass");
  auto absolute = parse("tls_server_config:\n  cert_file: a\n  key_file: b\n  key_password_file: /run/creds/b.pass\n");
  ASSERT_TRUE(absolute) << absolute.error().message;
  EXPECT_EQ(absolute->tls->key_password_file, "/run/creds/b.pass");
  auto plain = parse("tls_server_config:\n  cert_file: a\n  key_file: b\n");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->tls->key_password_file, "");  // absent: the key is not encrypted
  EXPECT_NE(error_of("tls_server_config:\n  key_password_file: b.pass\n").find(
                "web.yml:2: tls_server_config.key_password_file: needs key_file or key"),
            std::string::npos)
      << error_of("tls_server_config:\n  key_password_file: b.pass\n");
}

TEST(WebConfig, LoadResolvesNamesFromTheFilesDirectory) {
  const auto dir = std::filesystem::temp_directory_path() / ("gpuwatch-web-config-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "conf");
  const auto file = dir / "conf" / "web.yml";
  std::ofstream(file) << "tls_server_config:\n  cert_file: certs/server.crt\n  key_file: server.key\n";
  auto config = load_web_config(file.string());
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->source, file.string());
  EXPECT_EQ(config->tls->cert.path, (dir / "conf" / "certs/server.crt").string());
  EXPECT_EQ(config->tls->key.path, (dir / "conf" / "server.key").string());

  auto missing = load_web_config((dir / "nope.yml").string());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("nope.yml': No such file or directory"),
            std::string::npos)
      << missing.error().message;
  auto directory = load_web_config(dir.string());
  ASSERT_FALSE(directory);
  EXPECT_NE(directory.error().message.find("is a directory"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace web_config_test
}  // namespace gpuwatch::exporter
