#include "exporter/http/tls_context.hpp"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace gpuwatch::exporter {
namespace {

struct Pem {
  std::string cert;
  std::string key;
};

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

// A throwaway self-signed P-256 certificate and its key, as PEM; the key encrypted (PKCS#8,
// AES-256) with PASSPHRASE when one is given.
Pem self_signed(const std::string& passphrase = "") {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(X509_new(), X509_free);
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), 0);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  X509_sign(cert.get(), key.get(), EVP_sha256());
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(BIO_new(BIO_s_mem()), BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_X509(cert_bio.get(), cert.get());
  if (passphrase.empty()) {
    PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr);
  } else {
    PEM_write_bio_PKCS8PrivateKey(key_bio.get(), key.get(), EVP_aes_256_cbc(), passphrase.c_str(),
                                  static_cast<int>(passphrase.size()), nullptr, nullptr);
  }
  return {bio_text(cert_bio.get()), bio_text(key_bio.get())};
}

TlsServerConfig inline_config(const Pem& pem) {
  TlsServerConfig config;
  config.cert = {"cert", "", pem.cert};
  config.key = {"key", "", pem.key};
  return config;
}

TEST(TlsContext, AcceptsAMatchingCertificateAndKey) {
  const Pem pem = self_signed();
  auto ok = check_tls_config(inline_config(pem));
  EXPECT_TRUE(ok) << ok.error().message;
}

TEST(TlsContext, ClientVerificationWithACa) {
  const Pem pem = self_signed();
  TlsServerConfig config = inline_config(pem);
  config.client_auth = ClientAuth::RequireAndVerifyClientCert;
  config.client_ca = {"client_ca", "", pem.cert};
  config.min_version = TlsVersion::Tls13;
  auto ok = check_tls_config(config);
  EXPECT_TRUE(ok) << ok.error().message;
}

TEST(TlsContext, RefusesAKeyOfAnotherCertificate) {
  TlsServerConfig config = inline_config(self_signed());
  config.key.text = self_signed().key;
  auto bad = check_tls_config(config);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "key: does not match the certificate in cert");
}

TEST(TlsContext, NamesTheUnreadableFile) {
  TlsServerConfig config = inline_config(self_signed());
  config.cert = {"cert_file", "/nonexistent/server.crt", ""};
  auto bad = check_tls_config(config);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "cannot read cert_file '/nonexistent/server.crt': No such file or directory");
}

TEST(TlsContext, RefusesWhatIsNotPem) {
  const Pem pem = self_signed();
  TlsServerConfig config = inline_config(pem);
  config.cert.text = "hello";
  auto bad_cert = check_tls_config(config);
  ASSERT_FALSE(bad_cert);
  EXPECT_NE(bad_cert.error().message.find("cert: no PEM certificate in it"), std::string::npos)
      << bad_cert.error().message;
  config = inline_config(pem);
  config.key.text = pem.cert;  // a certificate where the key belongs
  auto bad_key = check_tls_config(config);
  ASSERT_FALSE(bad_key);
  EXPECT_NE(bad_key.error().message.find("key: no unencrypted PEM private key in it"), std::string::npos)
      << bad_key.error().message;
  config = inline_config(pem);
  config.client_auth = ClientAuth::RequireAndVerifyClientCert;
  config.client_ca = {"client_ca", "", "not a certificate"};
  auto bad_ca = check_tls_config(config);
  ASSERT_FALSE(bad_ca);
  EXPECT_EQ(bad_ca.error().message, "client_ca: no PEM certificate in it");
}

// tls_server_config.key_password_file: an encrypted key is read with the passphrase in that file;
// without it, or with a wrong one, the error names the key and never the passphrase.
TEST(TlsContext, AnEncryptedKeyWithItsKeyPasswordFile) {
  char pattern[] = "/tmp/gw_tls_key_password_XXXXXX";
  const std::filesystem::path dir = ::mkdtemp(pattern);
  auto pass_file = [&](const std::string& name, const std::string& text) {
    { std::ofstream(dir / name) << text; }
    std::filesystem::permissions(dir / name, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    return (dir / name).string();
  };
  TlsServerConfig config = inline_config(self_signed("hunter2 and more"));
  config.key_password_file = pass_file("right.pass", "hunter2 and more\n");
  auto ok = check_tls_config(config);
  EXPECT_TRUE(ok) << ok.error().message;

  config.key_password_file = pass_file("wrong.pass", "hunter3\n");
  auto wrong = check_tls_config(config);
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message.find("key: the key could not be decrypted or read with the given "
                                       "tls_server_config.key_password_file"),
            std::string::npos)
      << wrong.error().message;
  EXPECT_EQ(wrong.error().message.find("hunter"), std::string::npos) << wrong.error().message;

  config.key_password_file.clear();
  auto none = check_tls_config(config);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message,
            "key: the key is encrypted: give tls_server_config.key_password_file (a file holding its passphrase)");

  config.key_password_file = (dir / "absent.pass").string();
  auto absent = check_tls_config(config);
  ASSERT_FALSE(absent);
  EXPECT_NE(absent.error().message.find("cannot read tls_server_config.key_password_file '" + config.key_password_file + "'"),
            std::string::npos)
      << absent.error().message;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gpuwatch::exporter
