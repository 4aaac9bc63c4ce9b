#pragma once
// Where things go on the screen, from its size and the number of GPUs (1..64 and more). Pure.
//
//   Panels   a box per GPU: bars for utilization, memory, power and temperature, clocks, PCIe,
//            fan, throttle, the finding line, MIG instances, and (when there is room) history
//            sparklines; arranged in a grid of as many columns as the width allows.
//   Compact  two lines per GPU (values with short bars; PCIe, clocks, finding), in columns.
//   Lines    one line per GPU, in columns: for many GPUs or small terminals.
// Auto picks the richest that fits above a process list of at least kMinProcessRows rows;
// when even Lines does not fit, the GPU area scrolls (the selected GPU stays in view).
#include <optional>
#include <string_view>
#include <string>

namespace gpuwatch::tui {

enum class LayoutKind { Auto, Panels, Compact, Lines };
std::string_view to_string(LayoutKind kind);  // "auto", "panels", "compact", "lines"
std::optional<LayoutKind> layout_from_string(std::string_view text);
LayoutKind next_layout(LayoutKind kind);  // the `l` key: auto -> panels -> compact -> lines -> auto

inline constexpr int kPanelMinWidth = 60;
inline constexpr int kPanelBaseHeight = 6;   // title, 2 bar lines, clocks/PCIe, finding, border
inline constexpr int kPanelChartHeight = 3;  // the three sparklines
inline constexpr int kCompactMinWidth = 78;
inline constexpr int kLineMinWidth = 38;
inline constexpr int kMinProcessRows = 5;     // process rows kept below the GPUs (plus a header)
inline constexpr int kHeaderRows = 1;         // host, time, driver (plus the host line, when shown)
inline constexpr int kFooterRows = 1;         // key hints / messages

struct Layout {
  LayoutKind kind = LayoutKind::Lines;  // never Auto
  int columns = 1;                      // GPUs side by side
  int cell_width = 0;                   // columns of each GPU cell
  int cell_height = 1;                  // rows of each GPU cell
  bool charts = false;                  // panels with sparklines
  int gpu_area_rows = 0;                // rows the GPU area takes (scrolls when the GPUs need more)
  int gpu_rows_needed = 0;              // rows all GPUs would need
  int process_rows = 0;                 // process list rows below its header (0: no room)
  bool scrolls() const { return gpu_rows_needed > gpu_area_rows; }
};

// WIDTH x HEIGHT terminal, GPUS GPUs (MIG_ROWS extra rows a panel needs for its MIG instances:
// the largest over the GPUs), REQUESTED kind (Auto: choose), CHARTS wanted in panels, HEADER_ROWS
// above the GPUs (the title, and the host line when there is one: frame_header_rows). The GPU
// layout is chosen as for the title alone: rows past it come out of the process list.
Layout choose_layout(int width, int height, int gpus, int mig_rows, LayoutKind requested, bool charts,
                     int header_rows = kHeaderRows);

}  // namespace gpuwatch::tui
