#include "notify/rate_limiter.hpp"

#include <algorithm>

namespace gpuwatch::notify {

std::int64_t RateLimiter::next_allowed(std::int64_t now_ms) {
  if (limit_.messages <= 0) return now_ms;  // no limit
  const std::int64_t span_ms = std::chrono::duration_cast<std::chrono::milliseconds>(limit_.per).count();
  while (!sent_ms_.empty() && sent_ms_.front() <= now_ms - span_ms) sent_ms_.pop_front();
  if (static_cast<int>(sent_ms_.size()) < limit_.messages) return now_ms;
  // The window is full: the next slot opens when its oldest message leaves it.
  return std::max(now_ms, sent_ms_[sent_ms_.size() - static_cast<std::size_t>(limit_.messages)] + span_ms);
}

void RateLimiter::record(std::int64_t now_ms) {
  sent_ms_.push_back(now_ms);
  if (limit_.messages > 0) {
    while (static_cast<int>(sent_ms_.size()) > limit_.messages) sent_ms_.pop_front();
  } else {
    sent_ms_.clear();
  }
}

}  // namespace gpuwatch::notify
