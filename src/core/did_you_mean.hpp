#pragma once
// "Did you mean ...?" for words the user typed that are not known: commands, flags,
// query field names, scenario names. Pure functions over strings.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpuwatch::core {

// Damerau-Levenshtein distance (optimal string alignment: insert, delete, substitute,
// swap two neighbours), ignoring ASCII case.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidates close enough to WORD to be what was meant, best first, at most MAX:
// those at the smallest distance within a budget that grows with the word (1 edit up to
// 4 characters, 2 up to 8, 3 beyond), and those that start with WORD (3+ characters).
std::vector<std::string> closest_matches(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t max = 3);

// " Did you mean 'status'?" / " Did you mean 'a' or 'b'?" (with a leading space, to
// append to a message), or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace gpuwatch::core
