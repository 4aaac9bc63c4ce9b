#include "host_signals/infiniband.hpp"

#include "host_signals/words.hpp"

namespace gpuwatch::host_signals {

std::optional<std::uint64_t> parse_counter(std::string_view text) {
  const auto w = words_of(first_line(text));
  if (w.size() != 1) return std::nullopt;
  return unsigned_of(w[0]);
}

}  // namespace gpuwatch::host_signals
