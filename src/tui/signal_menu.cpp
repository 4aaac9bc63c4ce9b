// The signal menu (K): the signals to choose from, drawn over the first process rows.
#include <fmt/format.h>

#include "tui/frame_sections.hpp"
#include "tui/line_builder.hpp"

namespace gpuwatch::tui {

void signal_menu(const FrameInput& in, Frame& frame, int first_row) {
  const UiState& state = *in.state;
  if (!state.target) return;
  std::vector<Line> box;
  LineBuilder t(frame.width);
  t.add(fmt::format(" Send a signal to PID {} ({}): Up/Down and Enter, 1-{}, Esc cancels ", state.target->pid,
                    state.target->command, signal_choices().size()),
        Tone::Header);
  box.push_back(t.take());
  for (std::size_t i = 0; i < signal_choices().size(); ++i) {
    LineBuilder b(frame.width);
    b.add(fmt::format(" {} SIG{:<5} ({}) ", i + 1, signal_choices()[i].name, signal_choices()[i].number),
          i == state.signal_index ? Tone::Selected : Tone::Normal);
    box.push_back(b.take());
  }
  for (std::size_t i = 0; i < box.size(); ++i) {
    std::size_t y = static_cast<std::size_t>(first_row) + i;
    if (y + 1 < frame.lines.size()) frame.lines[y] = box[i];
  }
}

}  // namespace gpuwatch::tui
