#include "push/push_config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace push_config_test {

namespace fs = std::filesystem;

TEST(PushConfig, ReadsLabelsAuthBufferAndSecretFiles) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-push-config-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "pw") << "s3cret\n"; }
  const std::string text =
      "external_labels: {cluster: hpc-a}\n"
      "basic_auth: {username: gpu, password_file: pw}\n"
      "remote_timeout: 5s\n"
      "buffer: {dir: buf, max_size: 2MiB, max_age: 10m}\n";
  auto config = gpuwatch::push::parse_push_config(text, (dir / "push.yaml").string());
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->external_labels.at(0).value, "hpc-a");
  EXPECT_EQ(config->password, "s3cret");
  EXPECT_EQ(config->timeout, std::chrono::seconds(5));
  EXPECT_EQ(config->buffer_dir, dir / "buf");
  EXPECT_EQ(config->limits.max_bytes, 2u << 20);
  EXPECT_EQ(config->limits.max_age, std::chrono::minutes(10));
  fs::remove_all(dir);
}

TEST(PushConfig, ErrorsNameTheKey) {
  auto unknown = gpuwatch::push::parse_push_config("bufer: {}\n", "p.yaml");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("p.yaml:1: bufer: unknown key"), std::string::npos) << unknown.error().message;
  auto size = gpuwatch::push::parse_push_config("buffer: {max_size: lots}\n", "p.yaml");
  ASSERT_FALSE(size);
  EXPECT_NE(size.error().message.find("buffer.max_size"), std::string::npos);
  EXPECT_FALSE(gpuwatch::push::load_push_config("ftp://x", ""));
}

// tls_config's client certificate (mutual TLS): Prometheus's cert_file and key_file, both or
// neither, each a readable file, relative to the config's folder.
TEST(PushConfig, ReadsAClientCertificateAndKeyForMutualTls) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-push-mtls-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "client.pem") << "-----BEGIN CERTIFICATE-----\n"; }
  { std::ofstream(dir / "client.key") << "-----BEGIN PRIVATE KEY-----\n"; }
  { std::ofstream(dir / "ca.pem") << "-----BEGIN CERTIFICATE-----\n"; }
  const std::string source = (dir / "push.yaml").string();
  auto config = gpuwatch::push::parse_push_config(
      "tls_config: {ca_file: ca.pem, cert_file: client.pem, key_file: " + (dir / "client.key").string() + "}\n", source);
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->tls.ca_file, (dir / "ca.pem").string());
  EXPECT_EQ(config->tls.cert_file, (dir / "client.pem").string());  // relative: beside the config
  EXPECT_EQ(config->tls.key_file, (dir / "client.key").string());   // absolute: as written

  auto none = gpuwatch::push::parse_push_config("tls_config: {ca_file: ca.pem}\n", source);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(none->tls.cert_file, "");  // absent, not defaulted: no client certificate is sent
  EXPECT_EQ(none->tls.key_file, "");

  auto cert_only = gpuwatch::push::parse_push_config("tls_config: {cert_file: client.pem}\n", source);
  ASSERT_FALSE(cert_only);
  EXPECT_NE(cert_only.error().message.find("tls_config.cert_file: needs tls_config.key_file"), std::string::npos)
      << cert_only.error().message;
  auto key_only = gpuwatch::push::parse_push_config("tls_config:\n  key_file: client.key\n", source);
  ASSERT_FALSE(key_only);
  EXPECT_NE(key_only.error().message.find(":2: tls_config.key_file: needs tls_config.cert_file"), std::string::npos)
      << key_only.error().message;

  auto missing = gpuwatch::push::parse_push_config("tls_config: {cert_file: client.pem, key_file: nowhere.key}\n", source);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("tls_config.key_file"), std::string::npos) << missing.error().message;
  EXPECT_NE(missing.error().message.find((dir / "nowhere.key").string()), std::string::npos) << missing.error().message;

  if (::geteuid() != 0) {  // root reads any file
    fs::permissions(dir / "client.key", fs::perms::none);
    auto unreadable = gpuwatch::push::parse_push_config("tls_config: {cert_file: client.pem, key_file: client.key}\n", source);
    ASSERT_FALSE(unreadable);
    EXPECT_NE(unreadable.error().message.find("tls_config.key_file"), std::string::npos) << unreadable.error().message;
    fs::permissions(dir / "client.key", fs::perms::owner_all);
  }

  auto typo = gpuwatch::push::parse_push_config("tls_config: {cert: client.pem}\n", source);
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message.find("known: ca_file, cert_file, key_file, key_password_file, insecure_skip_verify"),
            std::string::npos)
      << typo.error().message;
  fs::remove_all(dir);
}

// tls_config.key_password_file: the passphrase of an encrypted key_file, from a file beside the
// config (or absolute), checked at load; never quoted in an error.
TEST(PushConfig, ReadsTheKeyPasswordFileOfAnEncryptedClientKey) {
  const auto dir = fs::temp_directory_path() / ("gpuwatch-push-keypass-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "client.pem") << "-----BEGIN CERTIFICATE-----\n"; }
  { std::ofstream(dir / "client.key") << "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n"; }
  { std::ofstream(dir / "client.pass") << "hunter2\n"; }
  { std::ofstream(dir / "empty.pass") << "\n"; }
  for (const char* name : {"client.pass", "empty.pass"}) fs::permissions(dir / name, fs::perms::owner_read | fs::perms::owner_write);
  const std::string source = (dir / "push.yaml").string();
  auto parse = [&](const std::string& tls) { return gpuwatch::push::parse_push_config("tls_config: {" + tls + "}\n", source); };
  auto message = [](const auto& result) { return result ? std::string("(no error)") : result.error().message; };

  auto config = parse("cert_file: client.pem, key_file: client.key, key_password_file: client.pass");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->tls.key_password, "hunter2");  // relative to the config's folder, one newline dropped
  auto absolute = parse("cert_file: client.pem, key_file: client.key, key_password_file: " + (dir / "client.pass").string());
  ASSERT_TRUE(absolute) << absolute.error().message;
  EXPECT_EQ(absolute->tls.key_password, "hunter2");

  auto without = parse("cert_file: client.pem, key_file: client.key");  // an encrypted key needs its passphrase
  EXPECT_NE(message(without).find("tls_config.key_file: tls_config.key_file '" + (dir / "client.key").string() +
                                  "' is encrypted: give tls_config.key_password_file"),
            std::string::npos)
      << message(without);
  auto no_key = parse("key_password_file: client.pass");
  EXPECT_NE(message(no_key).find("tls_config.key_password_file: needs tls_config.key_file"), std::string::npos) << message(no_key);
  auto missing = parse("cert_file: client.pem, key_file: client.key, key_password_file: nowhere.pass");
  EXPECT_NE(message(missing).find("cannot read tls_config.key_password_file '" + (dir / "nowhere.pass").string() + "'"),
            std::string::npos)
      << message(missing);
  auto empty = parse("cert_file: client.pem, key_file: client.key, key_password_file: empty.pass");
  EXPECT_NE(message(empty).find("'" + (dir / "empty.pass").string() + "' is empty"), std::string::npos) << message(empty);
  fs::permissions(dir / "client.pass", fs::perms::others_read, fs::perm_options::add);
  auto open = parse("cert_file: client.pem, key_file: client.key, key_password_file: client.pass");
  EXPECT_NE(message(open).find("is open to other users"), std::string::npos) << message(open);
  for (const auto& error : {message(without), message(no_key), message(missing), message(empty), message(open)}) {
    EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
  }
  fs::remove_all(dir);
}

}  // namespace push_config_test
