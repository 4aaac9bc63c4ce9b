#include "sim/engine/recovery_action.hpp"

namespace gpuwatch::sim {

std::optional<unsigned> recovery_action_code(std::string_view text) {
  static constexpr std::string_view kWords[] = {"None", "GPU Reset", "Node Reboot", "Drain P2P", "Drain and Reset"};
  for (unsigned i = 0; i < 5; ++i) {
    if (text == kWords[i] || (text.size() == 1 && text[0] == static_cast<char>('0' + i))) return i;
  }
  return std::nullopt;
}

}  // namespace gpuwatch::sim
