#pragma once
// Why its own file: build_frame (frame.cpp) stacks these sections, each in its own file, so one
// part of the screen can be read and changed without scrolling past the others.
#include "tui/frame.hpp"
#include "tui/layout.hpp"

namespace gpuwatch::tui {

// The host line under the title: the wide form when it fits the width, else the compact one with
// the parts that do not fit left out from the right; never wider than the screen (host_line_area.cpp).
void host_line_area(const HostLineView& host, Frame& frame);

// The GPU cells in a grid, scrolled so that the selected GPU shows (gpu_area.cpp).
void gpu_area(const FrameInput& in, const Layout& layout, Frame& frame);

// The process table: the column titles (click to sort) and LAYOUT.process_rows rows (process_area.cpp).
void process_area(const FrameInput& in, const Layout& layout, Frame& frame);

// The key table instead of the body, at most ROWS lines (help_screen.cpp).
void help_screen(Frame& frame, int rows);

// The signal menu, drawn over the rows from FIRST_ROW on (signal_menu.cpp).
void signal_menu(const FrameInput& in, Frame& frame, int first_row);

}  // namespace gpuwatch::tui
