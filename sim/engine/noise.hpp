#pragma once
// Stateless, seeded noise: a hash of (seed, gpu, key, time bucket). Two processes that
// read the same scenario at the same moment compute the same numbers.
#include <cmath>
#include <cstdint>

namespace gpuwatch::sim {

constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

constexpr std::uint64_t hash_mix(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c = 0) {
  return splitmix64(splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b) ^ c);
}

// Uniform in [-1, 1) for (seed, gpu, channel, bucket).
inline double unit_noise(std::uint64_t seed, unsigned gpu, unsigned channel, std::int64_t bucket) {
  std::uint64_t h = hash_mix(seed, gpu, channel, static_cast<std::uint64_t>(bucket));
  return static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// Smooth noise: linear interpolation between buckets of RATE per second at time T.
inline double smooth_noise(std::uint64_t seed, unsigned gpu, unsigned channel, double t, double rate) {
  double x = t * rate;
  double f = std::floor(x);
  auto b = static_cast<std::int64_t>(f);
  double a = unit_noise(seed, gpu, channel, b), c = unit_noise(seed, gpu, channel, b + 1);
  return a + (c - a) * (x - f);
}

}  // namespace gpuwatch::sim
