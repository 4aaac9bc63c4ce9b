#include "core/did_you_mean.hpp"

#include <algorithm>
#include <cctype>

namespace gpuwatch::core {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (prefix.size() > text.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (lower(text[i]) != lower(prefix[i])) return false;
  }
  return true;
}

std::size_t budget_for(std::string_view word) {
  if (word.size() <= 4) return 1;
  if (word.size() <= 8) return 2;
  return 3;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t rows = a.size() + 1, cols = b.size() + 1;
  std::vector<std::size_t> d(rows * cols);
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * cols + j]; };
  for (std::size_t i = 0; i < rows; ++i) at(i, 0) = i;
  for (std::size_t j = 0; j < cols; ++j) at(0, j) = j;
  for (std::size_t i = 1; i < rows; ++i) {
    for (std::size_t j = 1; j < cols; ++j) {
      const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1])) {
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);  // two neighbours swapped
      }
    }
  }
  return at(rows - 1, cols - 1);
}

std::vector<std::string> closest_matches(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t max) {
  if (word.empty() || max == 0) return {};
  struct Scored {
    std::size_t score;
    std::size_t order;
    const std::string* name;
  };
  std::vector<Scored> scored;
  const std::size_t budget = budget_for(word);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string& candidate = candidates[i];
    if (candidate.empty() || candidate == word) continue;  // the word itself is no suggestion
    const bool prefix = word.size() >= 3 && starts_with_ignoring_case(candidate, word);
    // The distance is at least the difference in length: past the budget, skip the quadratic
    // table (slow for a long unknown name against 400 field names).
    const std::size_t length_gap = word.size() > candidate.size() ? word.size() - candidate.size() : candidate.size() - word.size();
    if (length_gap > budget && !prefix) continue;
    std::size_t distance = edit_distance(word, candidate);  // 0: the same but for case
    if (prefix) distance = std::min<std::size_t>(distance, budget);
    if (distance <= budget) scored.push_back({distance, i, &candidate});
  }
  if (scored.empty()) return {};
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& x, const Scored& y) { return x.score < y.score; });
  std::vector<std::string> out;
  for (const auto& s : scored) {
    if (s.score != scored.front().score || out.size() == max) break;  // only the best distance
    if (std::find(out.begin(), out.end(), *s.name) == out.end()) out.push_back(*s.name);
  }
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const auto matches = closest_matches(word, candidates);
  if (matches.empty()) return "";
  std::string text = " Did you mean ";
  for (std::size_t i = 0; i < matches.size(); ++i) {
    if (i > 0) text += i + 1 == matches.size() ? " or " : ", ";
    text += "'" + matches[i] + "'";
  }
  return text + "?";
}

}  // namespace gpuwatch::core
