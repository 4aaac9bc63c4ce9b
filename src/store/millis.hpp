#pragma once
// Times in the history are Unix milliseconds: the units, and rounding down to one of them
// (store-internal, shared by the buckets, the unrolled reader and retention).
#include <cstdint>

namespace gpuwatch::store {

inline constexpr std::int64_t kSecondMs = 1000, kMinuteMs = 60 * kSecondMs, kHourMs = 60 * kMinuteMs,
                              kDayMs = 24 * kHourMs;

// MS rounded down to a multiple of UNIT, negative times included (floor, not truncation).
constexpr std::int64_t floor_to(std::int64_t ms, std::int64_t unit) {
  return ms >= 0 ? ms / unit * unit : (ms - unit + 1) / unit * unit;
}

}  // namespace gpuwatch::store
