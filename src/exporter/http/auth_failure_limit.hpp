#pragma once
// The per-client bound on wrong passwords (basic auth): each client address may have
// MAX_FAILURES bcrypt checks fail within one WINDOW; beyond, its requests that would need a
// bcrypt get 429 Too Many Requests (Retry-After: the rest of the window) without one, so a
// single client can not keep the bcrypt pool (bcrypt_pool.hpp) busy. Credentials verified
// before (basic_auth.hpp's cache) still pass: a throttled address does not lock out a
// Prometheus that shares it. At most MAX_SOURCES addresses are remembered (the oldest window
// is forgotten first), so memory stays bounded whatever the addresses. Pure: the caller
// gives the time; used on the HTTP server's I/O thread only.
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>

namespace gpuwatch::exporter {

class AuthFailureLimit {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kMaxFailures = 30;             // docs/security.md
  static constexpr std::chrono::seconds kWindow{60};
  static constexpr std::size_t kMaxSources = 4096;

  explicit AuthFailureLimit(std::size_t max_failures = kMaxFailures, std::chrono::seconds window = kWindow,
                            std::size_t max_sources = kMaxSources);

  // nullopt when SOURCE may try a password now; otherwise how long until it may (>= 1 s).
  std::optional<std::chrono::seconds> blocked_for(const std::string& source, Clock::time_point now) const;
  void record_failure(const std::string& source, Clock::time_point now);
  std::size_t sources() const { return failures_.size(); }

 private:
  struct Window {
    Clock::time_point start;
    std::size_t failures = 0;
  };
  void make_room(Clock::time_point now);

  std::size_t max_failures_;
  std::chrono::seconds window_;
  std::size_t max_sources_;
  std::unordered_map<std::string, Window> failures_;
};

}  // namespace gpuwatch::exporter
