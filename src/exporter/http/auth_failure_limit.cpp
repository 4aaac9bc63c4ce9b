#include "exporter/http/auth_failure_limit.hpp"

#include <algorithm>

namespace gpuwatch::exporter {

AuthFailureLimit::AuthFailureLimit(std::size_t max_failures, std::chrono::seconds window, std::size_t max_sources)
    : max_failures_(max_failures == 0 ? 1 : max_failures), window_(window), max_sources_(max_sources == 0 ? 1 : max_sources) {}

std::optional<std::chrono::seconds> AuthFailureLimit::blocked_for(const std::string& source, Clock::time_point now) const {
  const auto found = failures_.find(source);
  if (found == failures_.end() || found->second.failures < max_failures_) return std::nullopt;
  const auto end = found->second.start + window_;
  if (now >= end) return std::nullopt;
  const auto left = std::chrono::ceil<std::chrono::seconds>(end - now);
  return std::max(left, std::chrono::seconds(1));
}

void AuthFailureLimit::record_failure(const std::string& source, Clock::time_point now) {
  auto found = failures_.find(source);
  if (found == failures_.end()) {
    if (failures_.size() >= max_sources_) make_room(now);
    failures_.emplace(source, Window{now, 1});
    return;
  }
  Window& window = found->second;
  if (now >= window.start + window_) window = Window{now, 0};
  ++window.failures;
}

// Forgets the windows that ended; when none did, the one that started first.
void AuthFailureLimit::make_room(Clock::time_point now) {
  std::erase_if(failures_, [&](const auto& entry) { return now >= entry.second.start + window_; });
  if (failures_.size() < max_sources_) return;
  const auto oldest = std::min_element(failures_.begin(), failures_.end(),
                                       [](const auto& a, const auto& b) { return a.second.start < b.second.start; });
  failures_.erase(oldest);
}

}  // namespace gpuwatch::exporter
