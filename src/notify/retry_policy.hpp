#pragma once
// When to try a message again after a failed attempt: exponential backoff (1 s, 2 s, 4 s, ...
// up to 5 minutes between attempts), given up once the message is older than a day. Pure.
#include <chrono>
#include <cstdint>

namespace gpuwatch::notify {

struct RetryPolicy {
  std::chrono::milliseconds first_delay{1000};
  double factor = 2.0;
  std::chrono::milliseconds max_delay{std::chrono::minutes(5)};
  std::chrono::milliseconds give_up_after{std::chrono::hours(24)};  // since the message was queued
};

// The wait before the next attempt, after ATTEMPTS failed ones (1: the first failed).
std::chrono::milliseconds backoff_delay(int attempts, const RetryPolicy& policy);

// Whether a message queued at CREATED_MS is too old to try again at NOW_MS.
bool should_give_up(std::int64_t created_ms, std::int64_t now_ms, const RetryPolicy& policy);

}  // namespace gpuwatch::notify
