#include "tui/frame.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <string_view>

#include "terminal/severity.hpp"
#include "terminal/width.hpp"
#include "tui/format.hpp"

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

namespace {

using terminal::Severity;

Tone severity_tone(Severity s, Tone ok) {
  switch (s) {
    case Severity::Ok: return ok;
    case Severity::Warn: return Tone::Warn;
    case Severity::Critical: return Tone::Critical;
  }
  return ok;
}

Tone finding_tone(diagnose::Severity s) {
  switch (s) {
    case diagnose::Severity::Info: return Tone::Accent;
    case diagnose::Severity::Warning: return Tone::Warn;
    case diagnose::Severity::Critical: return Tone::Critical;
  }
  return Tone::Normal;
}

// Builds one line, cutting what does not fit in WIDTH columns.
class LineBuilder {
 public:
  explicit LineBuilder(int width) : width_(std::max(width, 0)) { line_.spans.reserve(8); }  // one allocation, not four
  LineBuilder& add(const std::string& text, Tone tone = Tone::Normal) { return add(std::string(text), tone); }
  // Taking the text (a temporary, a span being moved from a cell to its row): no copy.
  LineBuilder& add(std::string&& text, Tone tone = Tone::Normal) {
    if (text.empty()) return *this;
    int left = width_ - used_;
    if (left <= 0) return *this;
    int w = static_cast<int>(terminal::display_width(text));
    if (w <= left) {
      line_.spans.push_back({std::move(text), tone});
      used_ += w;
    } else {
      line_.spans.push_back({pad(text, left), tone});
      used_ = width_;
    }
    return *this;
  }
  LineBuilder& add(const char* text, Tone tone = Tone::Normal) { return add(std::string(text), tone); }
  LineBuilder& fill(Tone tone = Tone::Normal) {
    if (used_ < width_) add(std::string(static_cast<std::size_t>(width_ - used_), ' '), tone);
    return *this;
  }
  int used() const { return used_; }
  int left() const { return width_ - used_; }
  Line take() { return std::move(line_); }

 private:
  int width_;
  int used_ = 0;
  Line line_;
};

// Appends B's spans to A (a grid row made of cells).
void append(Line& a, Line&& b) {
  a.spans.reserve(a.spans.size() + b.spans.size() + 1);  // + the closing border
  a.spans.insert(a.spans.end(), std::make_move_iterator(b.spans.begin()), std::make_move_iterator(b.spans.end()));
}

// TEXT N times (the box rules).
std::string repeat(std::string_view text, int n) {
  std::string out;
  out.reserve(text.size() * static_cast<std::size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) out += text;
  return out;
}

std::string health_text(const GpuView& g) {
  switch (g.health) {
    case GpuHealth::Up: return "";
    case GpuHealth::Waiting: return "waiting";
    case GpuHealth::Stale: return "STALE " + format_age(g.age_seconds);
    case GpuHealth::Lost: return g.error;
    case GpuHealth::Down: return "DOWN " + g.error;
  }
  return "";
}

std::string gpu_label(const GpuView& g) {
  return g.host.empty() ? fmt::format("[{}]", g.index) : fmt::format("[{}:{}]", g.host, g.index);
}

struct Severities {
  Severity memory, power, temperature;
};

Severities severities(const GpuView& g) {
  return {terminal::memory_severity(g.memory_used_bytes, g.memory_total_bytes),
          terminal::power_severity(g.power_w, g.power_limit_w),
          terminal::temperature_severity(g.temperature_c, g.slowdown_c)};
}

std::optional<double> temperature_ratio(const GpuView& g) {
  if (!g.temperature_c) return std::nullopt;
  double limit = g.slowdown_c && *g.slowdown_c > 0 ? *g.slowdown_c : 100.0;
  return *g.temperature_c / limit;
}

// "LBL ████▌     value" in WIDTH columns.
void bar_field(LineBuilder& b, const char* label, std::optional<double> ratio, const std::string& value, int width,
               Tone bar_tone, Tone value_tone, bool dim) {
  constexpr int kValueWidth = 12;
  int bar_width = std::max(width - 4 - 1 - kValueWidth, 1);
  b.add(std::string(label) + " ", Tone::Title);
  b.add(bar(ratio, bar_width), dim ? Tone::Dim : bar_tone);
  b.add(" " + pad(value, kValueWidth, true), dim ? Tone::Dim : value_tone);
}

std::string temperature_value(const GpuView& g) {
  std::string t = format_celsius(g.temperature_c);
  if (g.slowdown_c) t = fmt::format("{}/{}", g.temperature_c ? std::to_string(std::llround(*g.temperature_c)) : kNa, format_celsius(g.slowdown_c));
  return t;
}

std::string power_value(const GpuView& g) {
  return fmt::format("{}/{}", g.power_w ? std::to_string(static_cast<long long>(std::floor(*g.power_w + 1e-6))) : kNa,
                     format_watts(g.power_limit_w));
}

std::string clocks_line(const GpuView& g) {
  std::string s = fmt::format("SM {}/{}MHz MEM {}MHz RX {} TX {}", format_mhz(g.sm_clock_hz), format_mhz(g.sm_max_hz),
                              format_mhz(g.memory_clock_hz), format_rate(g.pcie_rx_bytes_per_s), format_rate(g.pcie_tx_bytes_per_s));
  if (g.fan_ratio) s += " FAN " + format_percent(g.fan_ratio);
  return s;
}

// A panel: a box with the GPU's bars, clocks, finding, charts and MIG instances.
std::vector<Line> panel_cell(const GpuView& g, const Layout& layout, const History& history, bool selected) {
  const int w = layout.cell_width;
  const int inner = std::max(w - 2, 1);
  const Tone border = selected ? Tone::Accent : Tone::Dim;
  const bool dim = g.health != GpuHealth::Up;
  const Severities sev = severities(g);
  std::vector<Line> out;
  {  // ┌[3] H100 80GB HBM3 ── ▼thermal ─┐
    LineBuilder b(w);
    b.add("┌", border).add(gpu_label(g) + " ", Tone::Title).add(g.name + " ", Tone::Title);
    std::string status = health_text(g);
    std::string marker = !status.empty() ? status : g.throttle.empty() ? "" : "▼" + g.throttle;
    Tone marker_tone = !status.empty() ? (g.health == GpuHealth::Waiting ? Tone::Dim : Tone::Critical)
                                       : severity_tone(g.throttle_severity, Tone::Warn);
    int rule = b.left() - 1 - (marker.empty() ? 0 : static_cast<int>(terminal::display_width(marker)) + 2);
    b.add(repeat("─", rule), border);
    if (!marker.empty()) b.add(" ", border).add(marker, marker_tone).add(" ", border);
    b.add("┐", border);
    out.push_back(b.take());
  }
  auto row = [&](auto&& body) {
    LineBuilder b(w);
    b.add("│", border);
    LineBuilder inside(inner);
    body(inside);
    inside.fill();
    Line l = b.take();
    append(l, inside.take());
    l.spans.push_back({"│", border});
    out.push_back(std::move(l));
  };
  const int half = (inner - 1) / 2;
  row([&](LineBuilder& b) {
    LineBuilder left(half);
    bar_field(left, "GPU", g.utilization_ratio, format_percent(g.utilization_ratio), half, Tone::BarUtil, Tone::Normal, dim);
    left.fill();
    for (auto& s : left.take().spans) b.add(std::move(s.text), s.tone);
    b.add(" ");
    bar_field(b, "MEM", g.memory_ratio(), format_bytes_pair(g.memory_used_bytes, g.memory_total_bytes), inner - half - 1,
              severity_tone(sev.memory, Tone::BarMemory), severity_tone(sev.memory, Tone::Normal), dim);
  });
  row([&](LineBuilder& b) {
    LineBuilder left(half);
    bar_field(left, "PWR", g.power_ratio(), power_value(g), half, severity_tone(sev.power, Tone::BarPower),
              severity_tone(sev.power, Tone::Normal), dim);
    left.fill();
    for (auto& s : left.take().spans) b.add(std::move(s.text), s.tone);
    b.add(" ");
    bar_field(b, "TMP", temperature_ratio(g), temperature_value(g), inner - half - 1,
              severity_tone(sev.temperature, Tone::BarTemp), severity_tone(sev.temperature, Tone::Normal), dim);
  });
  row([&](LineBuilder& b) { b.add(clocks_line(g), dim ? Tone::Dim : Tone::Normal); });
  row([&](LineBuilder& b) {
    if (!g.finding.empty()) b.add("! " + g.finding, finding_tone(g.finding_severity));
    else if (g.health == GpuHealth::Stale) b.add("an NVML call has not returned for " + format_age(g.age_seconds) + "; values are the last good ones", Tone::Critical);
    else if (!g.error.empty() && g.health != GpuHealth::Up) b.add(g.error, Tone::Critical);
  });
  if (layout.charts) {
    const GpuHistory* h = history.find(g.host, g.index);
    const int chart = std::max(inner - 5, 1);
    auto chart_row = [&](const char* label, const std::deque<std::optional<double>>* series, Tone tone) {
      row([&](LineBuilder& b) {
        b.add(label, Tone::Dim);
        if (series) b.add(sparkline(last_points(*series, static_cast<std::size_t>(chart)), chart), tone);
      });
    };
    chart_row("util ", h ? &h->utilization : nullptr, Tone::BarUtil);
    chart_row("mem  ", h ? &h->memory : nullptr, Tone::BarMemory);
    chart_row("pwr  ", h ? &h->power : nullptr, Tone::BarPower);
  }
  for (const auto& m : g.mig) {
    row([&](LineBuilder& b) {
      b.add(fmt::format("└ MIG {} gi {} ci {} ", m.profile, m.gpu_instance_id, m.compute_instance_id), Tone::Accent);
      std::optional<double> ratio;
      if (m.memory_used_bytes && m.memory_total_bytes && *m.memory_total_bytes > 0) ratio = *m.memory_used_bytes / *m.memory_total_bytes;
      b.add(bar(ratio, 10), Tone::BarMemory).add(" " + format_bytes_pair(m.memory_used_bytes, m.memory_total_bytes));
    });
  }
  while (static_cast<int>(out.size()) < layout.cell_height - 1) row([](LineBuilder&) {});
  {
    LineBuilder b(w);
    b.add("└" + repeat("─", inner) + "┘", border);
    out.push_back(b.take());
  }
  return out;
}

// Two lines: values with short bars; throttle, clocks, PCIe and the finding.
std::vector<Line> compact_cell(const GpuView& g, const Layout& layout, bool selected) {
  const int w = layout.cell_width;
  const bool dim = g.health != GpuHealth::Up;
  const Severities sev = severities(g);
  std::vector<Line> out;
  {
    LineBuilder b(w);
    const std::string label = gpu_label(g);
    b.add(pad(label, std::max(5, static_cast<int>(terminal::display_width(label)))), selected ? Tone::Selected : Tone::Title).add(" ");
    b.add(pad(g.name, std::clamp(w - 59, 8, 24)) + " ", Tone::Title);  // the rest of the line is 58 columns
    std::string status = health_text(g);
    if (!status.empty()) {
      b.add(status, g.health == GpuHealth::Waiting ? Tone::Dim : Tone::Critical).add(" ");
    }
    b.add(pad(format_celsius(g.temperature_c), 5, true) + " ", dim ? Tone::Dim : severity_tone(sev.temperature, Tone::Normal));
    b.add(bar(g.utilization_ratio, 8), dim ? Tone::Dim : Tone::BarUtil).add(pad(format_percent(g.utilization_ratio), 5, true) + " ", dim ? Tone::Dim : Tone::Normal);
    b.add(bar(g.memory_ratio(), 8), dim ? Tone::Dim : severity_tone(sev.memory, Tone::BarMemory));
    b.add(pad(format_bytes_pair(g.memory_used_bytes, g.memory_total_bytes), 13, true) + " ", dim ? Tone::Dim : severity_tone(sev.memory, Tone::Normal));
    b.add(pad(power_value(g), 9, true), dim ? Tone::Dim : severity_tone(sev.power, Tone::Normal));
    out.push_back(b.take());
  }
  {
    LineBuilder b(w);
    b.add("      ");
    if (!g.throttle.empty()) b.add("▼" + g.throttle + " ", severity_tone(g.throttle_severity, Tone::Warn));
    b.add(clocks_line(g) + " ", dim ? Tone::Dim : Tone::Normal);
    if (!g.finding.empty()) b.add("! " + g.finding, finding_tone(g.finding_severity));
    else if (!g.mig.empty()) b.add(fmt::format("MIG: {} instances", g.mig.size()), Tone::Accent);
    out.push_back(b.take());
  }
  return out;
}

// One line: index, temperature, utilization and memory bars, power, marker, name.
std::vector<Line> line_cell(const GpuView& g, const Layout& layout, bool selected) {
  LineBuilder b(layout.cell_width - 1);
  const bool dim = g.health != GpuHealth::Up;
  const Severities sev = severities(g);
  const std::string label = gpu_label(g);
  b.add(pad(label, std::max(5, static_cast<int>(terminal::display_width(label)) + 1)), selected ? Tone::Selected : Tone::Title);
  std::string status = health_text(g);
  if (!status.empty()) {
    b.add(" " + status, g.health == GpuHealth::Waiting ? Tone::Dim : Tone::Critical);
  } else {
    b.add(pad(format_celsius(g.temperature_c), 5, true) + " ", severity_tone(sev.temperature, Tone::Normal));
    b.add(bar(g.utilization_ratio, 4), Tone::BarUtil).add(pad(format_percent(g.utilization_ratio), 5, true) + " ");
    b.add(bar(g.memory_ratio(), 4), severity_tone(sev.memory, Tone::BarMemory))
        .add(pad(format_percent(g.memory_ratio()), 5, true) + " ", severity_tone(sev.memory, Tone::Normal));
    b.add(pad(format_watts(g.power_w), 5, true), dim ? Tone::Dim : severity_tone(sev.power, Tone::Normal));
    if (!g.throttle.empty()) b.add(" ▼" + g.throttle, severity_tone(g.throttle_severity, Tone::Warn));
    if (!g.finding.empty()) b.add(" !", finding_tone(g.finding_severity));
  }
  b.add(" " + g.name, Tone::Dim);
  b.fill();
  Line l = b.take();
  l.spans.push_back({" ", Tone::Normal});
  return {l};
}

std::vector<Line> gpu_cell(const GpuView& g, const Layout& layout, const History& history, bool selected) {
  switch (layout.kind) {
    case LayoutKind::Panels: return panel_cell(g, layout, history, selected);
    case LayoutKind::Compact: return compact_cell(g, layout, selected);
    default: return line_cell(g, layout, selected);
  }
}

bool is_selected(const GpuView& g, const UiState& state) {
  return state.selected_gpu && state.selected_gpu->host == g.host && state.selected_gpu->index == g.index;
}

// The GPU area: cells in a grid, scrolled so that the selected GPU shows.
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
        append(rows[static_cast<std::size_t>(y)], b.take());
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

void help_screen(const FrameInput&, Frame& frame, int rows) {
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

// The signal menu, drawn over the first process rows.
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

}  // namespace

const Hit* hit_at(const Frame& frame, int x, int y) {
  for (const auto& h : frame.hits) {
    if (y >= h.y0 && y < h.y1 && x >= h.x0 && x < h.x1) return &h;
  }
  return nullptr;
}

Frame build_frame(const FrameInput& in, int width, int height) {
  Frame frame;
  frame.width = std::max(width, 1);
  frame.height = std::max(height, 1);
  const UiState& state = *in.state;
  int mig_rows = 0;
  for (const auto& g : in.model->gpus) mig_rows = std::max(mig_rows, static_cast<int>(g.mig.size()));
  frame.layout = choose_layout(frame.width, frame.height, static_cast<int>(in.model->gpus.size()), mig_rows,
                               state.layout, state.charts);
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
  const int body = frame.height - kHeaderRows - kFooterRows;
  if (state.mode == Mode::Help) {
    help_screen(in, frame, body);
  } else {
    gpu_area(in, layout, frame);
    while (static_cast<int>(frame.lines.size()) < kHeaderRows + layout.gpu_area_rows) frame.lines.push_back({});
    if (static_cast<int>(frame.lines.size()) < frame.height - kFooterRows) process_area(in, layout, frame);
    if (state.mode == Mode::SignalMenu) signal_menu(in, frame, kHeaderRows + layout.gpu_area_rows + 1);
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
