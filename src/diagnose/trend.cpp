#include "diagnose/trend.hpp"

#include <algorithm>

namespace gpuwatch::diagnose {

void Trend::Sums::add(double tt_, double yv, double sign) {
  n += sign;
  t += sign * tt_;
  y += sign * yv;
  tt += sign * tt_ * tt_;
  ty += sign * tt_ * yv;
  yy += sign * yv * yv;
}

std::optional<double> Trend::slope_of(const Sums& s) {
  if (s.n < 2) return std::nullopt;
  const double den = s.n * s.tt - s.t * s.t;
  if (den <= 1e-9 * std::max(1.0, s.n * s.tt)) return std::nullopt;
  return (s.n * s.ty - s.t * s.y) / den;
}

void Trend::clear() {
  points_.clear();
  recent_.clear();
  all_ = Sums{};
  recent_sums_ = Sums{};
}

void Trend::rebase(double origin) {
  const double shift = origin_ - origin;
  origin_ = origin;
  all_ = Sums{};
  recent_sums_ = Sums{};
  for (auto& p : points_) {
    p.t += shift;
    all_.add(p.t, p.y, 1);
  }
  for (auto& p : recent_) {
    p.t += shift;
    recent_sums_.add(p.t, p.y, 1);
  }
}

void Trend::push(double t_s, double y) {
  if (points_.empty()) origin_ = t_s;
  else if (t_s - origin_ > 4 * span_s_) rebase(points_.front().t + origin_);  // amortised O(1)
  const double t = t_s - origin_;
  points_.push_back({t, y});
  all_.add(t, y, 1);
  recent_.push_back({t, y});
  recent_sums_.add(t, y, 1);
  while (!points_.empty() && points_.front().t < t - span_s_) {
    all_.add(points_.front().t, points_.front().y, -1);
    points_.pop_front();
  }
  // The recent half: points newer than the middle of the covered time.
  const double middle = points_.front().t + (t - points_.front().t) / 2;
  while (!recent_.empty() && recent_.front().t < middle) {
    recent_sums_.add(recent_.front().t, recent_.front().y, -1);
    recent_.pop_front();
  }
}

std::optional<TrendFit> Trend::fit() const {
  if (points_.size() < 3) return std::nullopt;
  auto slope = slope_of(all_);
  if (!slope) return std::nullopt;
  TrendFit f;
  f.slope_per_s = *slope;
  f.points = points_.size();
  f.first_y = points_.front().y;
  f.last_y = points_.back().y;
  f.covered_s = covered_s();
  const double n = all_.n;
  const double syy = all_.yy - all_.y * all_.y / n;
  const double stt = all_.tt - all_.t * all_.t / n;
  const double sty = all_.ty - all_.t * all_.y / n;
  f.r2 = syy > 0 && stt > 0 ? std::clamp(sty * sty / (stt * syy), 0.0, 1.0) : 0;
  Sums older = all_;
  older.n -= recent_sums_.n;
  older.t -= recent_sums_.t;
  older.y -= recent_sums_.y;
  older.tt -= recent_sums_.tt;
  older.ty -= recent_sums_.ty;
  older.yy -= recent_sums_.yy;
  f.older_half_slope = slope_of(older);
  f.recent_half_slope = slope_of(recent_sums_);
  return f;
}

}  // namespace gpuwatch::diagnose
