#include "exporter/http/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "core/bounded_read.hpp"
#include "core/key_password_file.hpp"

namespace gpuwatch::exporter {
namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

// The most recent OpenSSL error, as "library: reason"; clears the queue.
std::string openssl_error() {
  const unsigned long code = ERR_peek_last_error();
  std::string text = "unknown OpenSSL error";
  if (code != 0) {
    const char* lib = ERR_lib_error_string(code);
    const char* reason = ERR_reason_error_string(code);
    text = std::string(lib ? lib : "OpenSSL") + ": " + (reason ? reason : "error " + std::to_string(code));
  }
  ERR_clear_error();
  return text;
}

// Never prompts for a pass phrase on the terminal: an encrypted key is an error.
int no_pass_phrase(char*, int, int, void*) { return 0; }

// Requested or required but not verified (RequestClientCert, RequireAnyClientCert).
int accept_any_certificate(int, X509_STORE_CTX*) { return 1; }

std::string describe(const PemSource& source) { return source.path.empty() ? source.key : source.key + " " + source.path; }

// A PEM file is read here, as bounded bytes (core/bounded_read.hpp), and handed to OpenSSL as
// a memory buffer: OpenSSL never opens the path, so /dev/zero or a FIFO is refused at once.
core::Result<std::string> read_pem(const PemSource& source) {
  if (source.path.empty()) return source.text;
  return core::read_regular_file(source.path, source.key, core::kMaxConfigFileBytes);
}

Bio memory_bio(const std::string& text) { return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size()))); }

core::Result<void> use_certificate_chain(SSL_CTX& ctx, const PemSource& source) {
  auto text = read_pem(source);
  if (!text) return text.error();
  Bio bio = memory_bio(*text);
  X509* leaf = PEM_read_bio_X509_AUX(bio.get(), nullptr, no_pass_phrase, nullptr);
  if (leaf == nullptr) return core::make_error(describe(source) + ": no PEM certificate in it (" + openssl_error() + ")");
  const int used = SSL_CTX_use_certificate(&ctx, leaf);
  X509_free(leaf);
  if (used != 1) return core::make_error(describe(source) + ": certificate refused (" + openssl_error() + ")");
  SSL_CTX_clear_chain_certs(&ctx);
  while (X509* intermediate = PEM_read_bio_X509(bio.get(), nullptr, no_pass_phrase, nullptr)) {
    if (SSL_CTX_add0_chain_cert(&ctx, intermediate) != 1) {
      X509_free(intermediate);
      return core::make_error(describe(source) + ": chain certificate refused (" + openssl_error() + ")");
    }
  }
  ERR_clear_error();  // the end of the PEM data reads as "no start line"
  return {};
}

// The passphrase of an encrypted key (key_password_file), copied for OpenSSL; never on a terminal.
int given_pass_phrase(char* buffer, int size, int, void* user) {
  const auto* password = static_cast<const std::string*>(user);
  if (password->size() > static_cast<std::size_t>(size)) return 0;
  std::memcpy(buffer, password->data(), password->size());
  return static_cast<int>(password->size());
}

core::Result<void> use_private_key(SSL_CTX& ctx, const PemSource& source, const PemSource& cert,
                                   const std::string& password_file) {
  auto text = read_pem(source);
  if (!text) return text.error();
  std::string password;
  if (!password_file.empty()) {
    auto read = core::read_key_password_file(password_file, "tls_server_config.key_password_file");
    if (!read) return read.error();
    password = std::move(*read);
  } else if (core::is_encrypted_pem_key(*text)) {
    return core::make_error(describe(source) + ": the key is encrypted: give tls_server_config.key_password_file "
                            "(a file holding its passphrase)");
  }
  Bio bio = memory_bio(*text);
  EVP_PKEY* key = password.empty() ? PEM_read_bio_PrivateKey(bio.get(), nullptr, no_pass_phrase, nullptr)
                                   : PEM_read_bio_PrivateKey(bio.get(), nullptr, given_pass_phrase, &password);
  if (key == nullptr && !password.empty())
    return core::make_error(describe(source) + ": the key could not be decrypted or read with the given "
                            "tls_server_config.key_password_file (wrong passphrase?) (" + openssl_error() + ")");
  if (key == nullptr)
    return core::make_error(describe(source) + ": no unencrypted PEM private key in it (" + openssl_error() + ")");
  const int used = SSL_CTX_use_PrivateKey(&ctx, key);
  EVP_PKEY_free(key);
  if (used != 1 || SSL_CTX_check_private_key(&ctx) != 1) {
    ERR_clear_error();
    return core::make_error(describe(source) + ": does not match the certificate in " + describe(cert));
  }
  return {};
}

core::Result<void> use_client_ca(SSL_CTX& ctx, const PemSource& source) {
  auto text = read_pem(source);
  if (!text) return text.error();
  Bio bio = memory_bio(*text);
  X509_STORE* store = SSL_CTX_get_cert_store(&ctx);
  int count = 0;
  while (X509* ca = PEM_read_bio_X509(bio.get(), nullptr, no_pass_phrase, nullptr)) {
    const bool added = X509_STORE_add_cert(store, ca) == 1 && SSL_CTX_add_client_CA(&ctx, ca) == 1;
    X509_free(ca);
    if (!added) return core::make_error(describe(source) + ": CA certificate refused (" + openssl_error() + ")");
    ++count;
  }
  ERR_clear_error();
  if (count == 0) return core::make_error(describe(source) + ": no PEM certificate in it");
  return {};
}

int protocol_version(TlsVersion version) {
  switch (version) {
    case TlsVersion::Tls10: return TLS1_VERSION;
    case TlsVersion::Tls11: return TLS1_1_VERSION;
    case TlsVersion::Tls12: return TLS1_2_VERSION;
    case TlsVersion::Tls13: return TLS1_3_VERSION;
  }
  return TLS1_2_VERSION;
}

void set_client_verification(SSL_CTX& ctx, ClientAuth policy) {
  switch (policy) {
    case ClientAuth::NoClientCert: SSL_CTX_set_verify(&ctx, SSL_VERIFY_NONE, nullptr); break;
    case ClientAuth::RequestClientCert: SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, accept_any_certificate); break;
    case ClientAuth::RequireAnyClientCert:
      SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_any_certificate);
      break;
    case ClientAuth::VerifyClientCertIfGiven: SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, nullptr); break;
    case ClientAuth::RequireAndVerifyClientCert:
      SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
      break;
  }
}

}  // namespace

core::Result<void> configure_tls_context(ssl_ctx_st& ctx, const TlsServerConfig& config) {
  ERR_clear_error();
  if (SSL_CTX_set_min_proto_version(&ctx, protocol_version(config.min_version)) != 1 ||
      SSL_CTX_set_max_proto_version(&ctx, protocol_version(config.max_version)) != 1)
    return core::make_error("tls_server_config: min_version/max_version refused (" + openssl_error() + ")");
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                                (config.prefer_server_cipher_suites ? SSL_OP_CIPHER_SERVER_PREFERENCE : 0));
  if (auto ok = use_certificate_chain(ctx, config.cert); !ok) return ok;
  if (auto ok = use_private_key(ctx, config.key, config.cert, config.key_password_file); !ok) return ok;
  if (!config.client_ca.empty()) {
    if (auto ok = use_client_ca(ctx, config.client_ca); !ok) return ok;
  }
  set_client_verification(ctx, config.client_auth);
  // Session resumption with client verification needs a session id context.
  static constexpr unsigned char kSessionContext[] = "gpuwatch";
  SSL_CTX_set_session_id_context(&ctx, kSessionContext, sizeof kSessionContext - 1);
  return {};
}

core::Result<void> check_tls_config(const TlsServerConfig& config) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (!ctx) return core::make_error("cannot create a TLS context (" + openssl_error() + ")");
  return configure_tls_context(*ctx, config);
}

}  // namespace gpuwatch::exporter
