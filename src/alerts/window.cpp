#include "alerts/window.hpp"

namespace gpuwatch::alerts {
namespace {
constexpr int kResumEvery = 1024;
}

const char* to_string(WindowFn fn) {
  switch (fn) {
    case WindowFn::Avg: return "avg";
    case WindowFn::Min: return "min";
    case WindowFn::Max: return "max";
    case WindowFn::Rate: return "rate";
    case WindowFn::Increase: return "increase";
    case WindowFn::Trend: return "trend";
    case WindowFn::Predict: return "predict";
    case WindowFn::Share: return "share";
    case WindowFn::Count: return "count";
  }
  return "avg";
}

void Window::add(const Sample& s, double sign) {
  sums_.n += sign;
  sums_.t += sign * s.t;
  sums_.x += sign * s.x;
  sums_.tt += sign * s.t * s.t;
  sums_.tx += sign * s.t * s.x;
}

void Window::grow() {
  std::vector<Sample> bigger(ring_.empty() ? 16 : ring_.size() * 2);
  for (std::size_t i = 0; i < size_; ++i) bigger[i] = at(i);
  ring_ = std::move(bigger);
  head_ = 0;
  if (spec_.fn == WindowFn::Min || spec_.fn == WindowFn::Max) {
    std::vector<Sample> m(ring_.size());
    for (std::size_t i = 0; i < mono_size_; ++i) m[i] = mono_[(mono_head_ + i) & (mono_.size() - 1)];
    mono_ = std::move(m);
    mono_head_ = 0;
  }
}

// Re-adds the sums from the samples, with the oldest sample's time as the new origin, so
// rounding errors cannot pile up over days and t stays small.
void Window::resum() {
  pushes_since_resum_ = 0;
  sums_ = Sums{};
  increase_ = 0;
  if (size_ == 0) return;
  const double shift = at(0).t;
  origin_ += shift;
  for (std::size_t i = 0; i < size_; ++i) {
    Sample& s = ring_[(head_ + i) & (ring_.size() - 1)];
    s.t -= shift;
    add(s, +1);
    if (i > 0) increase_ += counter_delta(at(i - 1).x, s.x);
  }
  for (std::size_t i = 0; i < mono_size_; ++i) mono_[(mono_head_ + i) & (mono_.size() - 1)].t -= shift;
}

void Window::evict(double now_s) {
  const double cutoff = now_s - spec_.span_s - origin_;  // relative
  while (size_ > 0 && at(0).t < cutoff) {
    if (size_ >= 2) increase_ -= counter_delta(at(0).x, at(1).x);
    add(at(0), -1);
    head_ = (head_ + 1) & (ring_.size() - 1);
    --size_;
  }
  while (mono_size_ > 0 && mono_[mono_head_].t < cutoff) {
    mono_head_ = (mono_head_ + 1) & (mono_.size() - 1);
    --mono_size_;
  }
  if (size_ == 0) {
    sums_ = Sums{};
    increase_ = 0;
  }
}

void Window::push(double t_s, std::optional<double> x) {
  if (!have_origin_) {
    origin_ = t_s;
    have_origin_ = true;
  }
  if (x) {
    if (size_ == ring_.size()) grow();
    const Sample s{t_s - origin_, *x};
    if (size_ > 0) increase_ += counter_delta(at(size_ - 1).x, s.x);
    ring_[(head_ + size_) & (ring_.size() - 1)] = s;
    ++size_;
    add(s, +1);
    if (spec_.fn == WindowFn::Min || spec_.fn == WindowFn::Max) {
      const bool is_max = spec_.fn == WindowFn::Max;
      while (mono_size_ > 0) {
        const Sample& back = mono_[(mono_head_ + mono_size_ - 1) & (mono_.size() - 1)];
        if (is_max ? back.x <= s.x : back.x >= s.x) --mono_size_;
        else break;
      }
      mono_[(mono_head_ + mono_size_) & (mono_.size() - 1)] = s;
      ++mono_size_;
    }
  }
  evict(t_s);
  if (++pushes_since_resum_ >= kResumEvery) resum();
}

std::optional<double> Window::value(double now_s) const {
  if (size_ == 0) return std::nullopt;
  switch (spec_.fn) {
    case WindowFn::Avg:
    case WindowFn::Share: return sums_.x / sums_.n;
    case WindowFn::Count: return static_cast<double>(size_);  // Prometheus' count_over_time
    case WindowFn::Min:
    case WindowFn::Max: return mono_[mono_head_].x;
    case WindowFn::Increase:
      if (size_ < 2) return std::nullopt;
      return increase_;
    case WindowFn::Rate: {
      if (size_ < 2) return std::nullopt;
      const double covered = at(size_ - 1).t - at(0).t;
      if (covered <= 0) return std::nullopt;
      return increase_ / covered;
    }
    case WindowFn::Trend:
    case WindowFn::Predict: {
      if (size_ < 2) return std::nullopt;
      const double n = sums_.n;
      const double den = n * sums_.tt - sums_.t * sums_.t;
      if (!(den > 1e-12 * n * n)) return std::nullopt;  // no spread in time
      const double slope = (n * sums_.tx - sums_.t * sums_.x) / den;
      if (spec_.fn == WindowFn::Trend) return slope;
      const double mean_t = sums_.t / n, mean_x = sums_.x / n;
      return mean_x + slope * (now_s - origin_ + spec_.horizon_s - mean_t);
    }
  }
  return std::nullopt;
}

}  // namespace gpuwatch::alerts
