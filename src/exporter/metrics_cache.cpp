#include "exporter/metrics_cache.hpp"

#include <algorithm>

namespace gpuwatch::exporter {

std::chrono::milliseconds metrics_reuse_window(std::chrono::milliseconds interval) {
  return std::clamp(interval / 10, std::chrono::milliseconds(0), std::chrono::milliseconds(50));
}

std::shared_ptr<const std::string> MetricsBodyCache::get(Clock::time_point now,
                                                         const std::function<void(std::string&)>& encode) {
  std::lock_guard lock(mutex_);
  if (body_ && reuse_for_.count() > 0 && now >= encoded_at_ && now - encoded_at_ < reuse_for_) return body_;
  // A new string each time: scrapes still sending the previous one keep it alive.
  auto fresh = std::make_shared<std::string>();
  if (body_) fresh->reserve(body_->size() + body_->size() / 8);
  encode(*fresh);
  body_ = std::move(fresh);
  encoded_at_ = now;
  return body_;
}

}  // namespace gpuwatch::exporter
