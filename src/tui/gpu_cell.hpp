#pragma once
// Why its own file: how one GPU looks (panel, compact or line) is the largest part of a frame,
// and the grid around it (gpu_area.cpp) needs only its lines.
#include <vector>

#include "tui/frame.hpp"
#include "tui/history.hpp"
#include "tui/layout.hpp"
#include "tui/model.hpp"

namespace gpuwatch::tui {

// G's cell in LAYOUT's kind: a panel (box with bars, clocks, finding, charts, MIG instances),
// two compact lines, or one line. At most LAYOUT.cell_width columns per line.
std::vector<Line> gpu_cell(const GpuView& g, const Layout& layout, const History& history, bool selected);

}  // namespace gpuwatch::tui
