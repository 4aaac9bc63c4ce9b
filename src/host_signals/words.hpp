#pragma once
// Splitting the kernel's text files: lines, whitespace-separated words, unsigned and decimal
// numbers. An unparsable number is nullopt, never 0.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gpuwatch::host_signals {

std::vector<std::string_view> lines_of(std::string_view text);
std::string_view first_line(std::string_view text);
std::vector<std::string_view> words_of(std::string_view line);
std::optional<std::uint64_t> unsigned_of(std::string_view word);
std::optional<double> decimal_of(std::string_view word);

}  // namespace gpuwatch::host_signals
