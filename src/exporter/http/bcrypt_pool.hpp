#pragma once
// Where the HTTP server runs bcrypt (basic_auth.hpp): a few threads of its own and a bounded
// queue, never the I/O thread nor the pool of slow routes. A full queue refuses at once (the
// server answers 503 with Retry-After), so a flood of wrong passwords costs at most THREADS
// cores and MAX_QUEUED waiting checks, never an unbounded backlog.
// Shutdown never waits for a hash: close() (and the destructor) return at once; a thread still
// inside bcrypt is detached, owns all it touches (a copy of the password and the hash), and ends
// with that hash or with the process, so `serve` exits within 2 s of SIGTERM whatever the cost.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace gpuwatch::exporter {

class BcryptPool {
 public:
  static constexpr std::size_t kThreads = 2;      // docs/security.md: at most two cores
  static constexpr std::size_t kMaxQueued = 16;   // checks waiting for a thread; more: 503

  // (password, hash) -> whether they match; bcrypt_matches unless a test gives another.
  using Hash = std::function<bool(const std::string& password, const std::string& hash)>;
  using Done = std::function<void(bool matched)>;

  explicit BcryptPool(std::size_t threads = kThreads, std::size_t max_queued = kMaxQueued, Hash hash = {});
  ~BcryptPool();  // close()
  BcryptPool(const BcryptPool&) = delete;
  BcryptPool& operator=(const BcryptPool&) = delete;

  // Queues one check; DONE(matched) is called on a pool thread once it ran, unless close()
  // came first (then never). False, with nothing queued and DONE dropped, when MAX_QUEUED
  // checks already wait or the pool is closed. The password is wiped once hashed.
  bool submit(std::string password, std::string hash, Done done);

  // Drops the queued checks and stops every DONE from being called from now on; returns
  // without waiting for a hash in progress (only for a DONE already running). Idempotent.
  void close();

  std::size_t queued() const;

  struct Shared;

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace gpuwatch::exporter
