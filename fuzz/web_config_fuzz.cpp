// libFuzzer target: the web configuration of `serve --web-config-file` (exporter/http/web_config.cpp),
// parsed from the input bytes (parse_web_config never touches the file system).
// Promises checked beyond "no crash": an accepted TLS config has a certificate and a key and
// min_version <= max_version; every basic-auth password is a bcrypt hash; no configured
// header value can split a response (CR/LF); every error names the file.
#include <string>

#include "exporter/http/web_config.hpp"
#include "fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpuwatch;
  auto config = exporter::parse_web_config(fuzz::as_text(data, size), "web.yml", "/etc/gpuwatch");
  if (!config) {
    GPUWATCH_FUZZ_CHECK(config.error().message.rfind("web.yml", 0) == 0, "an error names the file first");
    return 0;
  }
  if (config->tls) {
    GPUWATCH_FUZZ_CHECK(!config->tls->cert.empty() && !config->tls->key.empty(), "TLS needs a certificate and a key");
    GPUWATCH_FUZZ_CHECK(config->tls->min_version <= config->tls->max_version, "min_version <= max_version");
    const bool verifies = config->tls->client_auth == exporter::ClientAuth::VerifyClientCertIfGiven ||
                          config->tls->client_auth == exporter::ClientAuth::RequireAndVerifyClientCert;
    GPUWATCH_FUZZ_CHECK(!verifies || !config->tls->client_ca.empty(), "verifying client certificates needs a CA");
  }
  for (const auto& [user, hash] : config->basic_auth_users) {
    GPUWATCH_FUZZ_CHECK(!user.empty() && user.find(':') == std::string::npos, "a user name basic auth can carry");
    GPUWATCH_FUZZ_CHECK(exporter::is_bcrypt_hash(hash), "only bcrypt hashes are accepted");
  }
  for (const auto& [name, value] : config->headers)
    GPUWATCH_FUZZ_CHECK(value.find_first_of("\r\n") == std::string::npos, "a header value is one line");
  return 0;
}
