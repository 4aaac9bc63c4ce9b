#pragma once
// The open connections and what each is doing, for the connection cap and for stop()
// (pure bookkeeping; used on the I/O thread only). At the cap, a new connection evicts the
// connection that has been waiting longest without a complete request (idle between
// requests, in its TLS handshake or trickling headers: what slowloris and idle floods
// hold), so they can never lock out a scraper; only when every connection is being answered
// or streaming is the new one refused (the caller answers 503).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>

namespace gpuwatch::exporter::http {

enum class Phase {
  Handshake,  // TLS handshake
  Idle,       // waiting for the first byte of a request
  Reading,    // reading a request's line and headers (or its small body)
  Answering,  // a route runs or the answer is being written
  Streaming,  // an event stream
};

// True for the phases an eviction may cut short.
bool is_evictable(Phase phase);

class ConnectionRegistry {
 public:
  using Clock = std::chrono::steady_clock;
  using Id = std::uint64_t;
  explicit ConnectionRegistry(std::size_t max_connections) : max_(max_connections) {}

  // Registers a new connection (phase Idle, or Handshake) whose CLOSE closes its socket.
  // At the cap: closes and forgets the evictable connection in its phase longest, or, when
  // there is none, registers nothing and returns nullopt.
  std::optional<Id> admit(Clock::time_point now, Phase phase, std::function<void()> close);
  // Registers a connection outside the cap (one being refused with a 503), so close_all sees it.
  Id track(Clock::time_point now, std::function<void()> close);
  void set_phase(Id id, Phase phase, Clock::time_point now);
  // Forgets ID (a no-op once it was evicted or closed by close_all).
  void remove(Id id);
  // Closes and forgets every connection (stop()).
  void close_all();

  std::size_t size() const { return counted_; }  // the connections the cap counts (not those being refused)
  std::size_t evictions() const { return evictions_; }
  std::size_t refusals() const { return refusals_; }
  std::optional<Phase> phase(Id id) const;

 private:
  struct Entry {
    Phase phase;
    Clock::time_point since;
    std::function<void()> close;
    bool counted = true;  // false: tracked only (being refused)
  };
  void erase(std::map<Id, Entry>::iterator it);
  std::size_t max_;
  Id next_ = 1;
  std::map<Id, Entry> open_;
  std::size_t counted_ = 0;
  std::size_t evictions_ = 0;
  std::size_t refusals_ = 0;
};

}  // namespace gpuwatch::exporter::http
