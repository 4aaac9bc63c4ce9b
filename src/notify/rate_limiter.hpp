#pragma once
// A channel's rate limit: at most N messages in any window of the limit's span (a sliding
// window over the times of the messages sent). A message over the limit waits in the queue
// until next_allowed(); none is dropped. Pure (times are passed in).
#include <cstdint>
#include <deque>

#include "notify/channel.hpp"

namespace gpuwatch::notify {

class RateLimiter {
 public:
  explicit RateLimiter(RateLimit limit) : limit_(limit) {}
  // The earliest time (Unix ms, >= NOW_MS) the next message may go.
  std::int64_t next_allowed(std::int64_t now_ms);
  // A message went at NOW_MS.
  void record(std::int64_t now_ms);

 private:
  RateLimit limit_;
  std::deque<std::int64_t> sent_ms_;
};

}  // namespace gpuwatch::notify
