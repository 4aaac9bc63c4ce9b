#pragma once
// The windowed functions of the expression language over one series' past samples:
// avg, min, max, rate, increase, trend, predict, share, count over the last SPAN seconds
// (samples at t in [now - span, now], as a Prometheus 2.x range selector). Each push and
// read is O(1) amortised: a ring of the samples in the window, running sums (rebased and
// re-added now and then to bound rounding drift) and, for min/max, a monotonic queue.
// Absent samples are not pushed: a window holds only the values that were there.
#include <cstdint>
#include <optional>
#include <vector>

namespace gpuwatch::alerts {

enum class WindowFn : std::uint8_t { Avg, Min, Max, Rate, Increase, Trend, Predict, Share, Count };
const char* to_string(WindowFn fn);

struct WindowSpec {
  WindowFn fn = WindowFn::Avg;
  double span_s = 0;
  double horizon_s = 0;  // predict only
};

class Window {
 public:
  explicit Window(WindowSpec spec = {}) : spec_(spec) {}
  // A sample at T_S (non-decreasing); X absent: only old samples leave the window.
  void push(double t_s, std::optional<double> x);
  // The function's value now (NOW_S: the evaluation time, for predict); absent when the
  // window lacks the samples it needs (1 for avg/min/max/share/count, 2 for the others).
  std::optional<double> value(double now_s) const;
  std::size_t size() const { return size_; }

 private:
  struct Sample {
    double t = 0, x = 0;
  };
  struct Sums {
    double n = 0, t = 0, x = 0, tt = 0, tx = 0;
  };
  const Sample& at(std::size_t i) const { return ring_[(head_ + i) & (ring_.size() - 1)]; }
  void add(const Sample& s, double sign);
  void evict(double now_s);
  void grow();
  void resum();
  static double counter_delta(double before, double after) { return after >= before ? after - before : after; }

  WindowSpec spec_;
  std::vector<Sample> ring_;  // capacity a power of two; t relative to origin_
  std::size_t head_ = 0, size_ = 0;
  double origin_ = 0;
  bool have_origin_ = false;
  Sums sums_;
  double increase_ = 0;  // counter increase between consecutive samples in the window
  std::vector<Sample> mono_;  // min/max: monotonic queue (a ring as well)
  std::size_t mono_head_ = 0, mono_size_ = 0;
  int pushes_since_resum_ = 0;
};

// The windows of one series (one per windowed call in a rule's expressions).
using WindowSet = std::vector<Window>;

}  // namespace gpuwatch::alerts
