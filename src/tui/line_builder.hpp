#pragma once
// Why its own file: every section of the frame (title, GPU cells, process rows, overlays) builds
// its lines with LineBuilder, the one place a line is cut to the screen's width.
#include <algorithm>
#include <iterator>
#include <string>
#include <string_view>

#include "terminal/width.hpp"
#include "tui/format.hpp"
#include "tui/frame.hpp"

namespace gpuwatch::tui {

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
inline void append_spans(Line& a, Line&& b) {
  a.spans.reserve(a.spans.size() + b.spans.size() + 1);  // + the closing border
  a.spans.insert(a.spans.end(), std::make_move_iterator(b.spans.begin()), std::make_move_iterator(b.spans.end()));
}

// TEXT N times (the box rules).
inline std::string repeat_text(std::string_view text, int n) {
  std::string out;
  out.reserve(text.size() * static_cast<std::size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) out += text;
  return out;
}

}  // namespace gpuwatch::tui
