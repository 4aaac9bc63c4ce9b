#include "notify/retry_policy.hpp"

#include <algorithm>
#include <cmath>

namespace gpuwatch::notify {

std::chrono::milliseconds backoff_delay(int attempts, const RetryPolicy& policy) {
  const int exponent = std::clamp(attempts - 1, 0, 60);
  const double delay = static_cast<double>(policy.first_delay.count()) * std::pow(policy.factor, exponent);
  const double cap = static_cast<double>(policy.max_delay.count());
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::min(delay, cap)));
}

bool should_give_up(std::int64_t created_ms, std::int64_t now_ms, const RetryPolicy& policy) {
  return now_ms - created_ms >= policy.give_up_after.count();
}

}  // namespace gpuwatch::notify
