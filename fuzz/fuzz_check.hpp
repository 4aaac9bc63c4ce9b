#pragma once
// What every fuzz target shares: the input as text, and GPUWATCH_FUZZ_CHECK, an invariant
// that aborts (a libFuzzer crash, with the input saved) when a parser breaks its own promise,
// e.g. an accepted duration out of its documented range. Crashes, leaks and sanitizer reports
// are found without it; these checks find wrong answers.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace gpuwatch::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

[[noreturn]] inline void check_failed(const char* condition, const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: fuzz invariant broken: %s (%s)\n", file, line, what, condition);
  std::abort();
}

// True when TEXT has no control character (a message meant to be one printable line).
inline bool one_printable_line(std::string_view text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return false;
  }
  return true;
}

}  // namespace gpuwatch::fuzz

#define GPUWATCH_FUZZ_CHECK(condition, what) \
  ((condition) ? (void)0 : ::gpuwatch::fuzz::check_failed(#condition, what, __FILE__, __LINE__))
