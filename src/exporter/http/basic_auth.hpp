#pragma once
// HTTP basic authentication against bcrypt hashes (the basic_auth_users of a web config,
// web_config.hpp). bcrypt is libxcrypt's (crypt_rn), never our own; the result is compared
// in constant time. bcrypt is slow on purpose (cost 10: ~50-100 ms), so a successful
// (user, password, hash) is remembered in memory, as a SHA-256 digest, and a Prometheus
// scraping every second pays bcrypt once. Failures are never remembered. allows() runs one
// bcrypt at a time (as in exporter-toolkit); the HTTP server instead splits a check into
// prepare() (on its I/O thread: parse, cache), the bcrypt on its bounded BcryptPool
// (bcrypt_pool.hpp), and conclude(). Costs above kMaxBcryptCost never load (web_config.hpp).
// An unknown user costs a bcrypt too, so response times do not tell which users exist.
// Nothing here logs, and no password is kept in clear.
#include <atomic>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>

namespace gpuwatch::exporter {

struct BasicCredentials {
  std::string user;
  std::string password;
};

// The value of an Authorization header: "Basic base64(user:password)" (scheme
// case-insensitive). nullopt for any other scheme, bad base64, or no ':'.
std::optional<BasicCredentials> parse_basic_authorization(std::string_view header);

// True when PASSWORD hashes to HASH under HASH's own salt and cost (libxcrypt).
bool bcrypt_matches(std::string_view password, const std::string& hash);

inline constexpr std::string_view kBasicAuthChallenge = "Basic realm=\"gpuwatch\"";

// What a request's Authorization header needs: an answer known without bcrypt (no or a
// malformed header: denied; credentials verified before: allowed), or one bcrypt of
// PASSWORD against HASH. The password is wiped when the check is destroyed.
struct AuthCheck {
  enum class Verdict { Allowed, Denied, NeedsBcrypt };
  Verdict verdict = Verdict::Denied;
  std::string password;   // NeedsBcrypt: what to hash
  std::string hash;       // NeedsBcrypt: the user's (an unknown user's: another user's, so it costs the same)
  std::string cache_key;  // empty for an unknown user: never remembered
  bool known_user = false;

  AuthCheck() = default;
  AuthCheck(AuthCheck&&) = default;
  AuthCheck& operator=(AuthCheck&&) = default;
  ~AuthCheck();
};

class BasicAuthenticator {
 public:
  // USERS: user -> bcrypt hash (validated by the web config parser). CACHE_CAPACITY: how
  // many successful verifications are remembered (the cache is emptied when full).
  explicit BasicAuthenticator(std::map<std::string, std::string> users, std::size_t cache_capacity = 1024);

  // The request's Authorization header value (empty when absent): true lets it through.
  bool allows(std::string_view authorization_header);
  // True when these credentials were verified before (a cache hit, no bcrypt): the HTTP
  // server answers those on its I/O thread and runs allows() (maybe a bcrypt) on its pool.
  bool allows_cached(std::string_view authorization_header);
  bool verify(std::string_view user, std::string_view password);

  // The request's side of a check, without bcrypt (any thread).
  AuthCheck prepare(std::string_view authorization_header);
  // CHECK's bcrypt said MATCHED: true lets the request through (a success is remembered).
  bool conclude(const AuthCheck& check, bool matched);

  // How many bcrypt computations ran (tests: a cached success runs none).
  std::size_t bcrypt_runs() const { return bcrypt_runs_.load(); }

 private:
  bool run_bcrypt(std::string_view password, const std::string& hash);

  std::map<std::string, std::string> users_;
  std::size_t cache_capacity_;
  std::mutex cache_mutex_;
  std::unordered_set<std::string> verified_;  // SHA-256 of (user, password, hash)
  std::mutex bcrypt_mutex_;                   // one bcrypt at a time
  std::atomic<std::size_t> bcrypt_runs_{0};
};

}  // namespace gpuwatch::exporter
