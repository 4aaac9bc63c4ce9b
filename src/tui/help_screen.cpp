// The help screen: the key table (also docs/top.md's) and what the bars and colours mean.
#include "tui/frame_sections.hpp"
#include "tui/line_builder.hpp"

namespace gpuwatch::tui {

const std::vector<std::pair<std::string, std::string>>& key_help() {
  static const std::vector<std::pair<std::string, std::string>> keys = {
      {"q, F10", "quit"},
      {"?, h, F1", "this help (any key closes it)"},
      {"Up/Down, j/k, PgUp/PgDn, Home/End", "select a process"},
      {"s, >, F6 / S, <", "sort by the next / previous column"},
      {"r, I", "reverse the sort order"},
      {"/", "filter processes by a regular expression (PID, user, command); Enter applies, Esc cancels"},
      {"g, Tab, F2 / G, Shift-Tab", "show the processes of the next / previous GPU only"},
      {"a", "show the processes of every GPU"},
      {"Esc", "clear the filter and the GPU selection"},
      {"K, F9", "send a signal to the selected process (asks first; not with --readonly)"},
      {"p, Space", "pause: freeze the display (keys still work)"},
      {"l", "cycle the layout: auto, panels, compact, lines"},
      {"c", "history charts on/off (panels layout)"},
      {"t, F5", "tree view: GPU processes under their parents (launchers, shells) and children"},
      {"T", "cycle the theme: default, light, mono"},
      {"w, F12", "save layout, theme, sort and charts to the config file"},
      {"mouse", "click a GPU to select it, a process to select it, a column title to sort; wheel scrolls"},
  };
  return keys;
}

void help_screen(Frame& frame, int rows) {
  std::vector<Line> lines;
  LineBuilder t(frame.width);
  t.add("Keys (any key closes this help)", Tone::Header).fill(Tone::Header);
  lines.push_back(t.take());
  for (const auto& [k, what] : key_help()) {
    LineBuilder b(frame.width);
    b.add("  " + pad(k, 34), Tone::Key).add(what);
    lines.push_back(b.take());
  }
  LineBuilder n(frame.width);
  n.add("  Bars: utilization, memory (of total), power (of its limit), temperature (of the slowdown threshold).", Tone::Dim);
  lines.push_back(n.take());
  LineBuilder m(frame.width);
  m.add("  Yellow: near the limit; red: at it. STALE: the GPU's sampling thread is stuck in an NVML call.", Tone::Dim);
  lines.push_back(m.take());
  for (int i = 0; i < rows && i < static_cast<int>(lines.size()); ++i) frame.lines.push_back(lines[static_cast<std::size_t>(i)]);
}

}  // namespace gpuwatch::tui
