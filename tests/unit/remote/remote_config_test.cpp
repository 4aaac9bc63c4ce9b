#include "remote/remote_config.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace gpuwatch::remote {
namespace {

class RemoteConfig : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gw-remote-config-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(const std::string& name, const std::string& content) {
    auto path = dir_ / name;
    std::ofstream(path) << content;
    return path.string();
  }
  std::string config(const std::string& content) { return file("hosts.yaml", content); }
  std::filesystem::path dir_;
};

TEST_F(RemoteConfig, HostsWithBasicAuthFromAFileAndTls) {
  file("gpu1.password", "s3cret\n");
  file("ca.pem", "x");
  auto path = config(
      "hosts:\n"
      "  - url: https://gpu1:9443\n"
      "    basic_auth: {username: alice, password_file: gpu1.password}\n"
      "    tls_config: {ca_file: ca.pem}\n"
      "  - url: gpu2\n");
  auto hosts = load_remote_config(path);
  ASSERT_TRUE(hosts) << hosts.error().message;
  ASSERT_EQ(hosts->size(), 2u);
  EXPECT_EQ((*hosts)[0].scheme, "https");
  EXPECT_EQ((*hosts)[0].port, 9443);
  EXPECT_EQ((*hosts)[0].user, "alice");
  EXPECT_EQ((*hosts)[0].password, "s3cret");  // the newline dropped
  EXPECT_EQ((*hosts)[0].ca_file, (dir_ / "ca.pem").string());  // relative to the config file
  EXPECT_FALSE((*hosts)[0].insecure_skip_verify);
  EXPECT_EQ((*hosts)[1].host, "gpu2");
  EXPECT_EQ((*hosts)[1].port, 9835);
}

// An encrypted client key is refused at load, naming it (cpp-httplib takes no passphrase, and
// OpenSSL would ask for one on top's terminal); key_password_file is not a key of this file.
TEST_F(RemoteConfig, AnEncryptedClientKeyIsRefusedAtLoad) {
  file("c.pem", "-----BEGIN CERTIFICATE-----\n");
  const std::string key = file("c.key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIF\n");
  auto path = config("hosts:\n  - url: https://a:1\n    tls_config:\n      cert_file: c.pem\n      key_file: c.key\n");
  auto hosts = load_remote_config(path);
  ASSERT_FALSE(hosts);
  EXPECT_NE(hosts.error().message.find(":5: hosts[0].tls_config.key_file: '" + key +
                                       "' is encrypted: top --connect takes an unencrypted key only"),
            std::string::npos)
      << hosts.error().message;
  path = config("hosts:\n  - url: https://a:1\n    tls_config: {cert_file: c.pem, key_file: c.key, key_password_file: p}\n");
  hosts = load_remote_config(path);
  ASSERT_FALSE(hosts);
  EXPECT_NE(hosts.error().message.find("key_password_file: unknown key"), std::string::npos) << hosts.error().message;
  file("c.key", "-----BEGIN PRIVATE KEY-----\nMIGH\n");
  path = config("hosts:\n  - url: https://a:1\n    tls_config: {cert_file: c.pem, key_file: c.key}\n");
  EXPECT_TRUE(load_remote_config(path));
}

TEST_F(RemoteConfig, ErrorsNameTheFileLineAndKey) {
  auto path = config("hosts:\n  - url: http://a:1\n    basic_auth: {user: alice}\n");
  auto hosts = load_remote_config(path);
  ASSERT_FALSE(hosts);
  EXPECT_NE(hosts.error().message.find(path + ":3: hosts[0].basic_auth.user: unknown key"), std::string::npos)
      << hosts.error().message;

  path = config("hosts:\n  - url: http://a:1\n    tls_config: {ca_file: ca.pem}\n");
  hosts = load_remote_config(path);
  ASSERT_FALSE(hosts);
  EXPECT_NE(hosts.error().message.find("the url is not https"), std::string::npos) << hosts.error().message;

  path = config("hosts:\n  - url: https://a:1\n    tls_config: {cert_file: c.pem}\n");
  hosts = load_remote_config(path);
  ASSERT_FALSE(hosts);
  EXPECT_NE(hosts.error().message.find("cert_file and key_file go together"), std::string::npos);

  path = config("hosts:\n  - url: https://a:1\n    basic_auth: {username: a, password_file: missing}\n");
  hosts = load_remote_config(path);
  ASSERT_FALSE(hosts);
  EXPECT_NE(hosts.error().message.find("cannot read"), std::string::npos);

  // Config-named files go through the bounded regular-file read: a device or a FIFO is
  // refused at once, naming the file and the key's line.
  path = config("hosts:\n  - url: https://a:1\n    basic_auth:\n      username: a\n      password_file: /dev/zero\n");
  hosts = load_remote_config(path);
  ASSERT_FALSE(hosts);
  EXPECT_NE(hosts.error().message.find(":5: hosts[0].basic_auth.password_file: password_file '/dev/zero' is a device"),
            std::string::npos)
      << hosts.error().message;
  path = config("hosts:\n  - url: https://a:1\n    tls_config:\n      ca_file: /dev/zero\n");
  hosts = load_remote_config(path);
  ASSERT_FALSE(hosts);
  EXPECT_NE(hosts.error().message.find(":4: hosts[0].tls_config.ca_file: ca_file '/dev/zero' is a device"), std::string::npos)
      << hosts.error().message;

  EXPECT_FALSE(parse_remote_config("hosts: []\n", "x.yaml"));
  EXPECT_FALSE(parse_remote_config("hosts:\n  - url: ftp://a\n", "x.yaml"));
  EXPECT_FALSE(parse_remote_config("[", "x.yaml"));
}

}  // namespace
}  // namespace gpuwatch::remote
