// The GPU area: the cells in a grid, scrolled so that the selected GPU shows, with their click regions.
#include <fmt/format.h>

#include <algorithm>

#include "terminal/width.hpp"
#include "tui/frame_sections.hpp"
#include "tui/gpu_cell.hpp"
#include "tui/line_builder.hpp"

namespace gpuwatch::tui {

namespace {

bool is_selected(const GpuView& g, const UiState& state) {
  return state.selected_gpu && state.selected_gpu->host == g.host && state.selected_gpu->index == g.index;
}

}  // namespace

void gpu_area(const FrameInput& in, const Layout& layout, Frame& frame) {
  const auto& gpus = in.model->gpus;
  const int top = static_cast<int>(frame.lines.size());
  if (gpus.empty()) {
    LineBuilder b(frame.width);
    b.add("no GPU", Tone::Dim);
    frame.lines.push_back(b.take());
    return;
  }
  const int grid_rows = (static_cast<int>(gpus.size()) + layout.columns - 1) / layout.columns;
  const int visible_rows = std::max(layout.gpu_area_rows / layout.cell_height, 1);
  int first = std::clamp(in.state->gpu_scroll, 0, std::max(grid_rows - visible_rows, 0));
  if (in.state->selected_gpu) {
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      if (!is_selected(gpus[i], *in.state)) continue;
      int r = static_cast<int>(i) / layout.columns;
      if (r < first) first = r;
      if (r >= first + visible_rows) first = r - visible_rows + 1;
    }
  }
  for (int r = first; r < std::min(grid_rows, first + visible_rows); ++r) {
    std::vector<Line> rows(static_cast<std::size_t>(layout.cell_height));
    for (int c = 0; c < layout.columns; ++c) {
      std::size_t i = static_cast<std::size_t>(r * layout.columns + c);
      std::vector<Line> cell;
      if (i < gpus.size()) {
        cell = gpu_cell(gpus[i], layout, *in.history, is_selected(gpus[i], *in.state));
        int y0 = top + (r - first) * layout.cell_height;
        frame.hits.push_back({HitKind::Gpu, y0, y0 + layout.cell_height, c * layout.cell_width,
                              (c + 1) * layout.cell_width, i});
      }
      for (int y = 0; y < layout.cell_height; ++y) {
        LineBuilder b(layout.cell_width);
        if (y < static_cast<int>(cell.size())) {
          for (auto& s : cell[static_cast<std::size_t>(y)].spans) b.add(std::move(s.text), s.tone);
        }
        b.fill();
        append_spans(rows[static_cast<std::size_t>(y)], b.take());
      }
    }
    for (auto& l : rows) frame.lines.push_back(std::move(l));
  }
  if (layout.scrolls()) {  // say that more GPUs are above or below
    Line& last = frame.lines.back();
    std::string more = fmt::format(" GPUs {}-{} of {} (g/G) ", first * layout.columns,
                                   std::min(static_cast<int>(gpus.size()), (first + visible_rows) * layout.columns) - 1,
                                   gpus.size());
    LineBuilder b(frame.width);
    int keep = frame.width - static_cast<int>(terminal::display_width(more));
    LineBuilder head(std::max(keep, 0));
    for (auto& s : last.spans) head.add(s.text, s.tone);
    head.fill();
    for (auto& s : head.take().spans) b.add(std::move(s.text), s.tone);
    b.add(more, Tone::Header);
    last = b.take();
  }
}

}  // namespace gpuwatch::tui
