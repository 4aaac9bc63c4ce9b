#pragma once
// A least-squares line through (t, y) over the last SPAN seconds, kept incrementally, with
// the slopes of the older and the recent half (a leak grows steadily; an allocator's cache
// decelerates towards a plateau). O(1) amortised per point.
#include <cstddef>
#include <deque>
#include <optional>

namespace gpuwatch::diagnose {

struct TrendFit {
  double slope_per_s = 0;       // units of y per second
  double r2 = 0;                // goodness of the line, 0..1
  double first_y = 0, last_y = 0;
  double covered_s = 0;
  std::size_t points = 0;
  std::optional<double> older_half_slope, recent_half_slope;
};

class Trend {
 public:
  explicit Trend(double span_s) : span_s_(span_s) {}
  void push(double t_s, double y);
  void clear();
  std::size_t size() const { return points_.size(); }
  double covered_s() const { return points_.empty() ? 0 : points_.back().t - points_.front().t; }
  // nullopt with fewer than 3 points or no time covered.
  std::optional<TrendFit> fit() const;

 private:
  struct Point {
    double t, y;
  };
  struct Sums {
    double n = 0, t = 0, y = 0, tt = 0, ty = 0, yy = 0;
    void add(double t, double y, double sign);
  };
  static std::optional<double> slope_of(const Sums& s);
  void rebase(double origin);

  double span_s_;
  double origin_ = 0;            // t is stored relative to this, for precision
  std::deque<Point> points_;     // relative t
  Sums all_;
  std::deque<Point> recent_;     // the newer half of the window
  Sums recent_sums_;
};

}  // namespace gpuwatch::diagnose
