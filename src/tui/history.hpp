#pragma once
// The last minutes of utilization, memory and power of every GPU, for the sparkline charts.
// One point per refresh (the -d interval); a GPU that is not up adds a gap (absent), so a hung
// GPU's chart does not pretend to go on. Pure: the caller says when a refresh happened.
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "tui/model.hpp"

namespace gpuwatch::tui {

struct GpuHistory {
  std::deque<std::optional<double>> utilization, memory, power;  // ratios 0..1 (power: of its limit)
};

class History {
 public:
  explicit History(std::size_t capacity = 600) : capacity_(capacity) {}
  // One point per GPU of MODEL.
  void push(const Model& model);
  // Nullptr when the GPU has no history yet.
  const GpuHistory* find(const std::string& host, unsigned index) const;
  std::size_t capacity() const { return capacity_; }

 private:
  std::size_t capacity_;
  std::map<std::pair<std::string, unsigned>, GpuHistory> gpus_;
};

// The last N points of SERIES as a vector (for sparkline()).
std::vector<std::optional<double>> last_points(const std::deque<std::optional<double>>& series, std::size_t n);

}  // namespace gpuwatch::tui
