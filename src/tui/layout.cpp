#include "tui/layout.hpp"

#include <algorithm>

namespace gpuwatch::tui {

std::string_view to_string(LayoutKind kind) {
  switch (kind) {
    case LayoutKind::Auto: return "auto";
    case LayoutKind::Panels: return "panels";
    case LayoutKind::Compact: return "compact";
    case LayoutKind::Lines: return "lines";
  }
  return "auto";
}

std::optional<LayoutKind> layout_from_string(std::string_view text) {
  for (LayoutKind k : {LayoutKind::Auto, LayoutKind::Panels, LayoutKind::Compact, LayoutKind::Lines}) {
    if (to_string(k) == text) return k;
  }
  return std::nullopt;
}

LayoutKind next_layout(LayoutKind kind) {
  switch (kind) {
    case LayoutKind::Auto: return LayoutKind::Panels;
    case LayoutKind::Panels: return LayoutKind::Compact;
    case LayoutKind::Compact: return LayoutKind::Lines;
    case LayoutKind::Lines: return LayoutKind::Auto;
  }
  return LayoutKind::Auto;
}

namespace {

// KIND laid out in WIDTH columns for GPUS GPUs.
Layout shape(LayoutKind kind, int width, int gpus, int mig_rows, bool charts) {
  Layout l;
  l.kind = kind;
  int min_width = kind == LayoutKind::Panels ? kPanelMinWidth : kind == LayoutKind::Compact ? kCompactMinWidth : kLineMinWidth;
  int n = std::max(gpus, 1);
  l.columns = std::clamp(width / min_width, 1, n);
  l.cell_width = width / l.columns;
  l.charts = kind == LayoutKind::Panels && charts;
  l.cell_height = kind == LayoutKind::Panels ? kPanelBaseHeight + mig_rows + (l.charts ? kPanelChartHeight : 0)
                  : kind == LayoutKind::Compact ? 2
                                                : 1;
  int grid_rows = (n + l.columns - 1) / l.columns;
  l.gpu_rows_needed = gpus == 0 ? 1 : grid_rows * l.cell_height;
  return l;
}

}  // namespace

Layout choose_layout(int width, int height, int gpus, int mig_rows, LayoutKind requested, bool charts, int header_rows) {
  width = std::max(width, 1);
  const int body = std::max(height - header_rows - kFooterRows, 1);
  const int process_min = kMinProcessRows + 1;  // header row
  // The GPUs get the room of a screen with the title alone: a host line (issue 25) takes its row
  // from the process list, never a richer GPU layout (8 GPUs stay compact on 80x24).
  const int gpu_budget = std::max(height - kHeaderRows - kFooterRows - process_min, 1);
  auto finish = [&](Layout l) {
    l.gpu_area_rows = std::min(l.gpu_rows_needed, gpu_budget);
    // A panel cut in half is no use: scroll by whole cells.
    if (l.scrolls()) l.gpu_area_rows = std::max(l.cell_height, gpu_budget / l.cell_height * l.cell_height);
    l.gpu_area_rows = std::min(l.gpu_area_rows, body);
    l.process_rows = std::max(body - l.gpu_area_rows - 1, 0);
    return l;
  };
  if (requested != LayoutKind::Auto) return finish(shape(requested, width, gpus, mig_rows, charts));
  // The richest form that fits: panels with charts, panels, compact, lines.
  if (width >= kPanelMinWidth) {
    if (charts) {
      Layout l = shape(LayoutKind::Panels, width, gpus, mig_rows, true);
      if (l.gpu_rows_needed <= gpu_budget) return finish(l);
    }
    Layout l = shape(LayoutKind::Panels, width, gpus, mig_rows, false);
    if (l.gpu_rows_needed <= gpu_budget) return finish(l);
  }
  if (width >= kCompactMinWidth) {
    Layout l = shape(LayoutKind::Compact, width, gpus, mig_rows, false);
    if (l.gpu_rows_needed <= gpu_budget) return finish(l);
  }
  return finish(shape(LayoutKind::Lines, width, gpus, mig_rows, false));
}

}  // namespace gpuwatch::tui
