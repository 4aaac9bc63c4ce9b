#pragma once
// Sums of per-sample contributions over the last SPAN seconds: push is O(1) amortised (each
// sample enters and leaves once), reads are O(1). Used for every windowed share and mean.
// Entries live in a ring buffer that only grows (a deque would allocate per entry here).
#include <array>
#include <cstddef>
#include <vector>

namespace gpuwatch::diagnose {

template <std::size_t N>
class SlidingSums {
 public:
  using Values = std::array<double, N>;

  explicit SlidingSums(double span_s) : span_s_(span_s) {}

  void push(double t_s, const Values& v) {
    if (size_ == ring_.size()) grow();
    ring_[(head_ + size_) & (ring_.size() - 1)] = Entry{t_s, v};
    ++size_;
    for (std::size_t i = 0; i < N; ++i) sums_[i] += v[i];
    while (size_ > 0 && front().t_s < t_s - span_s_) {
      for (std::size_t i = 0; i < N; ++i) sums_[i] -= front().v[i];
      head_ = (head_ + 1) & (ring_.size() - 1);
      --size_;
    }
    if (++pushes_since_resum_ >= kResumEvery) resum();  // bounds the rounding drift
  }

  void clear() {
    size_ = 0;
    sums_.fill(0);
  }

  double sum(std::size_t channel) const { return sums_[channel]; }
  std::size_t size() const { return size_; }
  // Seconds between the oldest and the newest sample in the window.
  double covered_s() const { return size_ == 0 ? 0 : back().t_s - front().t_s; }
  double span_s() const { return span_s_; }

 private:
  static constexpr int kResumEvery = 4096;
  struct Entry {
    double t_s = 0;
    Values v{};
  };
  const Entry& front() const { return ring_[head_]; }
  const Entry& back() const { return ring_[(head_ + size_ - 1) & (ring_.size() - 1)]; }
  void grow() {
    std::vector<Entry> bigger(ring_.empty() ? 64 : ring_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
    ring_ = std::move(bigger);
    head_ = 0;
  }
  void resum() {
    pushes_since_resum_ = 0;
    sums_.fill(0);
    for (std::size_t k = 0; k < size_; ++k)
      for (std::size_t i = 0; i < N; ++i) sums_[i] += ring_[(head_ + k) & (ring_.size() - 1)].v[i];
  }

  double span_s_;
  std::vector<Entry> ring_;  // capacity a power of two
  std::size_t head_ = 0, size_ = 0;
  Values sums_{};
  int pushes_since_resum_ = 0;
};

}  // namespace gpuwatch::diagnose
