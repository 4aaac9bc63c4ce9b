#include "exporter/http/basic_auth.hpp"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "exporter/http/message.hpp"

namespace gpuwatch::exporter {
namespace {

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Standard base64 (RFC 4648 §4); the '=' padding is optional. nullopt on any other character.
std::optional<std::string> base64_decode(std::string_view text) {
  while (!text.empty() && text.back() == '=') text.remove_suffix(1);
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    const int v = base64_value(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    if (++count == 4) {
      out.push_back(static_cast<char>((bits >> 16) & 0xff));
      out.push_back(static_cast<char>((bits >> 8) & 0xff));
      out.push_back(static_cast<char>(bits & 0xff));
      bits = 0;
      count = 0;
    }
  }
  if (count == 2) out.push_back(static_cast<char>((bits >> 4) & 0xff));
  if (count == 3) {
    out.push_back(static_cast<char>((bits >> 10) & 0xff));
    out.push_back(static_cast<char>((bits >> 2) & 0xff));
  }
  return out;
}

void append_field(std::string& out, std::string_view field) {
  const auto size = static_cast<std::uint32_t>(field.size());
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out.append(field);
}

// SHA-256 of (user, password, hash), length-prefixed so no two triples collide by concatenation.
std::string cache_key(std::string_view user, std::string_view password, std::string_view hash) {
  std::string input;
  append_field(input, user);
  append_field(input, password);
  append_field(input, hash);
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  const bool ok = EVP_Digest(input.data(), input.size(), digest.data(), &size, EVP_sha256(), nullptr) == 1;
  OPENSSL_cleanse(input.data(), input.size());
  if (!ok) return {};
  return std::string(reinterpret_cast<const char*>(digest.data()), size);
}

}  // namespace

std::optional<BasicCredentials> parse_basic_authorization(std::string_view header) {
  while (!header.empty() && (header.front() == ' ' || header.front() == '\t')) header.remove_prefix(1);
  const auto space = header.find(' ');
  if (space == std::string_view::npos || !http::iequals(header.substr(0, space), "basic")) return std::nullopt;
  std::string_view token = header.substr(space + 1);
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && (token.back() == ' ' || token.back() == '\t')) token.remove_suffix(1);
  auto decoded = base64_decode(token);
  if (!decoded) return std::nullopt;
  const auto colon = decoded->find(':');
  if (colon == std::string::npos) return std::nullopt;
  BasicCredentials credentials{decoded->substr(0, colon), decoded->substr(colon + 1)};
  OPENSSL_cleanse(decoded->data(), decoded->size());
  return credentials;
}

bool bcrypt_matches(std::string_view password, const std::string& hash) {
  // crypt takes C strings: a password with a NUL in it would be cut short there.
  if (password.find('\0') != std::string_view::npos) return false;
  const std::string phrase(password);
  auto data = std::make_unique<crypt_data>();  // 32 KiB, zeroed
  const char* result = crypt_rn(phrase.c_str(), hash.c_str(), data.get(), sizeof(crypt_data));
  bool match = result != nullptr && std::strlen(result) == hash.size() &&
               CRYPTO_memcmp(result, hash.data(), hash.size()) == 0;
  OPENSSL_cleanse(data.get(), sizeof(crypt_data));
  return match;
}

BasicAuthenticator::BasicAuthenticator(std::map<std::string, std::string> users, std::size_t cache_capacity)
    : users_(std::move(users)), cache_capacity_(cache_capacity) {}

bool BasicAuthenticator::run_bcrypt(std::string_view password, const std::string& hash) {
  std::lock_guard lock(bcrypt_mutex_);
  ++bcrypt_runs_;
  return bcrypt_matches(password, hash);
}

bool BasicAuthenticator::verify(std::string_view user, std::string_view password) {
  if (users_.empty()) return false;
  const auto found = users_.find(std::string(user));
  if (found == users_.end()) {
    run_bcrypt(password, users_.begin()->second);  // same cost as a known user: no user enumeration by timing
    return false;
  }
  const std::string key = cache_key(user, password, found->second);
  if (!key.empty()) {
    std::lock_guard lock(cache_mutex_);
    if (verified_.count(key) != 0) return true;
  }
  if (!run_bcrypt(password, found->second)) return false;
  if (!key.empty() && cache_capacity_ > 0) {
    std::lock_guard lock(cache_mutex_);
    if (verified_.size() >= cache_capacity_) verified_.clear();
    verified_.insert(key);
  }
  return true;
}

bool BasicAuthenticator::allows(std::string_view authorization_header) {
  if (authorization_header.empty()) return false;
  auto credentials = parse_basic_authorization(authorization_header);
  if (!credentials) return false;
  const bool ok = verify(credentials->user, credentials->password);
  OPENSSL_cleanse(credentials->password.data(), credentials->password.size());
  return ok;
}

AuthCheck::~AuthCheck() {
  if (!password.empty()) OPENSSL_cleanse(password.data(), password.size());
}

AuthCheck BasicAuthenticator::prepare(std::string_view authorization_header) {
  AuthCheck check;
  if (authorization_header.empty() || users_.empty()) return check;
  auto credentials = parse_basic_authorization(authorization_header);
  if (!credentials) return check;
  const auto found = users_.find(credentials->user);
  check.known_user = found != users_.end();
  check.hash = check.known_user ? found->second : users_.begin()->second;
  if (check.known_user) {
    check.cache_key = cache_key(credentials->user, credentials->password, found->second);
    if (!check.cache_key.empty()) {
      std::lock_guard lock(cache_mutex_);
      if (verified_.count(check.cache_key) != 0) check.verdict = AuthCheck::Verdict::Allowed;
    }
  }
  if (check.verdict != AuthCheck::Verdict::Allowed) {
    check.verdict = AuthCheck::Verdict::NeedsBcrypt;
    check.password = credentials->password;
  }
  OPENSSL_cleanse(credentials->password.data(), credentials->password.size());
  return check;
}

bool BasicAuthenticator::conclude(const AuthCheck& check, bool matched) {
  if (check.verdict != AuthCheck::Verdict::NeedsBcrypt) return check.verdict == AuthCheck::Verdict::Allowed;
  ++bcrypt_runs_;
  if (!matched || !check.known_user) return false;
  if (!check.cache_key.empty() && cache_capacity_ > 0) {
    std::lock_guard lock(cache_mutex_);
    if (verified_.size() >= cache_capacity_) verified_.clear();
    verified_.insert(check.cache_key);
  }
  return true;
}

bool BasicAuthenticator::allows_cached(std::string_view authorization_header) {
  if (authorization_header.empty() || users_.empty()) return false;
  auto credentials = parse_basic_authorization(authorization_header);
  if (!credentials) return false;
  bool hit = false;
  const auto found = users_.find(credentials->user);
  if (found != users_.end()) {
    const std::string key = cache_key(credentials->user, credentials->password, found->second);
    std::lock_guard lock(cache_mutex_);
    hit = !key.empty() && verified_.count(key) != 0;
  }
  OPENSSL_cleanse(credentials->password.data(), credentials->password.size());
  return hit;
}

}  // namespace gpuwatch::exporter
