// The process table: column titles (the sorted one marked, each a click region) and the visible rows.
#include <algorithm>

#include "tui/frame_sections.hpp"
#include "tui/line_builder.hpp"

namespace gpuwatch::tui {

void process_area(const FrameInput& in, const Layout& layout, Frame& frame) {
  const UiState& state = *in.state;
  const bool multi_host = std::any_of(in.model->gpus.begin(), in.model->gpus.end(), [](const GpuView& g) { return !g.host.empty(); });
  const bool owners = std::any_of(in.model->processes.begin(), in.model->processes.end(),
                                  [](const ProcessView& p) { return p.owner.has_value(); });
  const auto hidden = [&](const ColumnSpec& c) {
    return (c.column == Column::Host && !multi_host) || (c.column == Column::Owner && !owners) ||
           frame.width < c.min_screen_width;
  };
  // Header row.
  LineBuilder header(frame.width);
  const int y_header = static_cast<int>(frame.lines.size());
  int x = 0;
  for (const auto& c : process_columns()) {
    if (hidden(c)) continue;
    std::string title(c.title);
    if (c.column == state.sort) title += state.descending ? "▼" : "▲";
    int w = c.width == 0 ? std::max(header.left(), 1) : c.width;
    std::string cell = pad(title, w, c.right) + (c.width == 0 ? "" : " ");
    header.add(cell, c.column == state.sort ? Tone::Selected : Tone::Header);
    frame.hits.push_back({HitKind::ColumnTitle, y_header, y_header + 1, x, x + w, static_cast<std::size_t>(c.column)});
    x += w + 1;
  }
  header.fill(Tone::Header);
  frame.lines.push_back(header.take());
  const auto& visible = *in.visible;
  for (int r = 0; r < layout.process_rows; ++r) {
    std::size_t i = state.process_scroll + static_cast<std::size_t>(r);
    LineBuilder b(frame.width);
    if (i < visible.size()) {
      const ProcessView& p = visible[i];
      const bool cursor = i == state.cursor;
      for (const auto& c : process_columns()) {
        if (hidden(c)) continue;
        int w = c.width == 0 ? std::max(b.left(), 1) : c.width;
        std::string text = process_cell(p, c.column);
        Tone tone = cursor ? Tone::Selected : (text == kNa || p.host_only) ? Tone::Dim : Tone::Normal;
        if (!cursor && c.column == Column::Pid) tone = Tone::Accent;
        b.add(pad(text, w, c.right) + (c.width == 0 ? "" : " "), tone);
      }
      b.fill(cursor ? Tone::Selected : Tone::Normal);
      const int y = static_cast<int>(frame.lines.size());
      frame.hits.push_back({HitKind::Process, y, y + 1, 0, frame.width, i});
    } else if (i == 0 && r == 0) {
      b.add(state.filter.active() || state.selected_gpu ? "no process matches (Esc clears the filter and GPU selection)"
                                                        : "no GPU process",
            Tone::Dim);
    }
    frame.lines.push_back(b.take());
  }
}

}  // namespace gpuwatch::tui
