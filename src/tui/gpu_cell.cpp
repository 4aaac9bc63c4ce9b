// How one GPU looks in each layout: the panel, compact and line cells, with their tones.
#include "tui/gpu_cell.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "terminal/severity.hpp"
#include "terminal/width.hpp"
#include "tui/format.hpp"
#include "tui/line_builder.hpp"

namespace gpuwatch::tui {

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
    b.add("┌", border).add(gpu_label(g) + " ", Tone::Title);
    if (!g.vendor_tag.empty()) b.add(g.vendor_tag + " ", Tone::Dim);  // a mixed screen: "[4] amd AMD Instinct ..."
    b.add(g.name + " ", Tone::Title);
    std::string status = health_text(g);
    std::string marker = !status.empty() ? status : g.throttle.empty() ? "" : "▼" + g.throttle;
    Tone marker_tone = !status.empty() ? (g.health == GpuHealth::Waiting ? Tone::Dim : Tone::Critical)
                                       : severity_tone(g.throttle_severity, Tone::Warn);
    int rule = b.left() - 1 - (marker.empty() ? 0 : static_cast<int>(terminal::display_width(marker)) + 2);
    b.add(repeat_text("─", rule), border);
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
    append_spans(l, inside.take());
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
    b.add("└" + repeat_text("─", inner) + "┘", border);
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
    const int name_width = std::clamp(w - 59, 8, 24);  // the rest of the line is 58 columns
    if (g.vendor_tag.empty()) {
      b.add(pad(g.name, name_width) + " ", Tone::Title);
    } else {  // the vendor takes its room from the name, so the columns stay where they were
      const int tag_width = std::min(static_cast<int>(g.vendor_tag.size()) + 1, name_width - 4);
      b.add(pad(g.vendor_tag, tag_width - 1) + " ", Tone::Dim);
      b.add(pad(g.name, name_width - tag_width) + " ", Tone::Title);
    }
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
  b.add(" " + (g.vendor_tag.empty() ? g.name : g.vendor_tag + " " + g.name), Tone::Dim);
  b.fill();
  Line l = b.take();
  l.spans.push_back({" ", Tone::Normal});
  return {l};
}

}  // namespace

std::vector<Line> gpu_cell(const GpuView& g, const Layout& layout, const History& history, bool selected) {
  switch (layout.kind) {
    case LayoutKind::Panels: return panel_cell(g, layout, history, selected);
    case LayoutKind::Compact: return compact_cell(g, layout, selected);
    default: return line_cell(g, layout, selected);
  }
}

}  // namespace gpuwatch::tui
