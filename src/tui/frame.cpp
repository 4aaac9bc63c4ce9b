// build_frame: the title line, the sections (frame_sections.hpp) and the footer, stacked to the screen's height.
#include "tui/frame.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "terminal/width.hpp"
#include "tui/format.hpp"
#include "tui/frame_sections.hpp"
#include "tui/line_builder.hpp"

namespace gpuwatch::tui {

std::string Line::text() const {
  std::string out;
  for (const auto& s : spans) out += s.text;
  return out;
}

std::string Frame::text() const {
  std::string out;
  for (const auto& l : lines) out += l.text() + "\n";
  return out;
}

const Hit* hit_at(const Frame& frame, int x, int y) {
  for (const auto& h : frame.hits) {
    if (y >= h.y0 && y < h.y1 && x >= h.x0 && x < h.x1) return &h;
  }
  return nullptr;
}

int frame_header_rows(const Model& model) { return kHeaderRows + (model.host_line ? 1 : 0); }

Frame build_frame(const FrameInput& in, int width, int height) {
  Frame frame;
  frame.width = std::max(width, 1);
  frame.height = std::max(height, 1);
  const UiState& state = *in.state;
  int mig_rows = 0;
  for (const auto& g : in.model->gpus) mig_rows = std::max(mig_rows, static_cast<int>(g.mig.size()));
  const int header_rows = frame_header_rows(*in.model);
  frame.layout = choose_layout(frame.width, frame.height, static_cast<int>(in.model->gpus.size()), mig_rows,
                               state.layout, state.charts, header_rows);
  const Layout& layout = frame.layout;

  {  // Title line: what, where, when; the state of sort, filter, selection, pause on the right.
    LineBuilder b(frame.width);
    std::string right;
    if (state.selected_gpu) right += fmt::format(" GPU {}", state.selected_gpu->index);
    if (state.filter.active()) right += " /" + state.filter.pattern();
    if (state.paused) right += " PAUSED";
    if (state.readonly) right += " read-only";
    // The title gives way to the state on the right (which says why the screen looks as it does).
    const int room = frame.width - static_cast<int>(terminal::display_width(right));
    if (static_cast<int>(terminal::display_width(in.title)) > room && room > 0) b.add(pad(in.title, room), Tone::Header);
    else b.add(in.title, Tone::Header);
    int gap = b.left() - static_cast<int>(terminal::display_width(right));
    if (gap > 0) b.add(std::string(static_cast<std::size_t>(gap), ' '), Tone::Header);
    b.add(right, state.paused ? Tone::Critical : Tone::Header);
    b.fill(Tone::Header);
    frame.lines.push_back(b.take());
  }
  if (in.model->host_line) host_line_area(*in.model->host_line, frame);
  const int body = frame.height - header_rows - kFooterRows;
  if (state.mode == Mode::Help) {
    help_screen(frame, body);
  } else {
    gpu_area(in, layout, frame);
    while (static_cast<int>(frame.lines.size()) < header_rows + layout.gpu_area_rows) frame.lines.push_back({});
    if (static_cast<int>(frame.lines.size()) < frame.height - kFooterRows) process_area(in, layout, frame);
    if (state.mode == Mode::SignalMenu) signal_menu(in, frame, header_rows + layout.gpu_area_rows + 1);
  }
  if (static_cast<int>(frame.lines.size()) > frame.height - kFooterRows) {
    frame.lines.resize(static_cast<std::size_t>(std::max(frame.height - kFooterRows, 0)));
  }
  while (static_cast<int>(frame.lines.size()) < frame.height - kFooterRows) frame.lines.push_back({});
  {  // Footer: the filter prompt, the confirmation, a message, or the key hints.
    LineBuilder b(frame.width);
    if (state.mode == Mode::Filter) {
      if (state.message.empty()) b.add("Filter (regex, Enter applies, Esc cancels): ", Tone::Key);
      b.add("/" + state.filter_edit + "█");
      if (!state.message.empty()) b.add("  " + state.message, Tone::Critical);
    } else if (state.mode == Mode::Confirm && state.target) {
      const char* name = "?";
      for (const auto& c : signal_choices()) {
        if (c.number == state.target->signal) name = c.name.data();
      }
      b.add(fmt::format("Send SIG{} to PID {} ({})? y/N ", name, state.target->pid, state.target->command), Tone::Critical);
    } else if (!state.message.empty()) {
      b.add(state.message, state.message_is_error ? Tone::Critical : Tone::Accent);
    } else {
      for (auto [k, what] : {std::pair{"q", "quit"}, {"?", "help"}, {"/", "filter"}, {"s", "sort"}, {"g", "GPU"},
                             {"K", "signal"}, {"p", "pause"}, {"l", "layout"}, {"t", "tree"}, {"w", "save"}}) {
        b.add(k, Tone::Key).add(std::string(" ") + what + "  ", Tone::Dim);
      }
      b.add(fmt::format("[{} {}]", to_string(layout.kind), fmt::format("{:g}s", in.interval_seconds)), Tone::Dim);
    }
    frame.lines.push_back(b.take());
  }
  return frame;
}

}  // namespace gpuwatch::tui
