#pragma once
// The whole screen as text: lines of coloured spans, never wider than the screen, plus where
// the mouse can click (GPU cells, process rows, column titles). Pure: built from the model, the
// UI state and the history; screen.cpp draws it with curses, tests read it as text, and the
// bench times it (frame building is all the CPU a refresh costs besides the sampling threads).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tui/history.hpp"
#include "tui/layout.hpp"
#include "tui/model.hpp"
#include "tui/theme.hpp"
#include "tui/ui_state.hpp"

namespace gpuwatch::tui {

struct Span {
  std::string text;
  Tone tone = Tone::Normal;
  bool operator==(const Span&) const = default;
};

struct Line {
  std::vector<Span> spans;
  std::string text() const;  // the spans' text joined
  bool operator==(const Line&) const = default;  // the screen redraws only the lines that changed
};

struct Hit {
  HitKind kind;
  int y0 = 0, y1 = 0;  // rows [y0, y1)
  int x0 = 0, x1 = 0;  // columns [x0, x1)
  std::size_t value = 0;      // Gpu: index in Model::gpus; Process: row in the visible list; ColumnTitle: Column
};

struct Frame {
  int width = 0, height = 0;
  Layout layout;
  std::vector<Line> lines;  // exactly HEIGHT lines, each at most WIDTH columns
  std::vector<Hit> hits;
  std::string text() const;  // every line, '\n'-terminated (tests)
};

struct FrameInput {
  const Model* model = nullptr;
  const UiState* state = nullptr;
  const History* history = nullptr;
  const std::vector<ProcessView>* visible = nullptr;  // the process list as it shows (visible_processes)
  std::string title;      // "gpuwatch top  vm  08:05:54  driver 550.90.07"
  double interval_seconds = 1;
};

Frame build_frame(const FrameInput& input, int width, int height);

// The rows above the GPUs: the title, and the host line when MODEL has one (pass it to choose_layout).
int frame_header_rows(const Model& model);

// The hit at column X, row Y; nullptr when none.
const Hit* hit_at(const Frame& frame, int x, int y);

// The help screen's lines (also docs/top.md's key table).
const std::vector<std::pair<std::string, std::string>>& key_help();

}  // namespace gpuwatch::tui
