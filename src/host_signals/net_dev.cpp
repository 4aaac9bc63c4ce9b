#include "host_signals/net_dev.hpp"

#include "host_signals/words.hpp"

namespace gpuwatch::host_signals {

std::vector<InterfaceCounters> parse_net_dev(std::string_view text) {
  std::vector<InterfaceCounters> out;
  for (std::string_view line : lines_of(text)) {
    // "  eth0: 533035592 14332 0 0 0 0 0 0 1193792 10464 ..." (old kernels: "eth0:533035592")
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // the two header lines have '|', not ':'
    const auto names = words_of(line.substr(0, colon));
    const auto w = words_of(line.substr(colon + 1));
    if (names.size() != 1 || w.size() < 9) continue;
    if (names[0] == "lo") continue;
    auto rx = unsigned_of(w[0]), tx = unsigned_of(w[8]);
    if (rx && tx) out.push_back({std::string(names[0]), *rx, *tx});
  }
  return out;
}

}  // namespace gpuwatch::host_signals
