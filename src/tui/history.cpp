#include "tui/history.hpp"

namespace gpuwatch::tui {

namespace {
void push_one(std::deque<std::optional<double>>& series, std::optional<double> value, std::size_t capacity) {
  series.push_back(value);
  while (series.size() > capacity) series.pop_front();
}
}  // namespace

void History::push(const Model& model) {
  for (const auto& gpu : model.gpus) {
    GpuHistory& h = gpus_[{gpu.host, gpu.index}];
    const bool up = gpu.health == GpuHealth::Up;
    push_one(h.utilization, up ? gpu.utilization_ratio : std::nullopt, capacity_);
    push_one(h.memory, up ? gpu.memory_ratio() : std::nullopt, capacity_);
    push_one(h.power, up ? gpu.power_ratio() : std::nullopt, capacity_);
  }
}

const GpuHistory* History::find(const std::string& host, unsigned index) const {
  auto it = gpus_.find({host, index});
  return it == gpus_.end() ? nullptr : &it->second;
}

std::vector<std::optional<double>> last_points(const std::deque<std::optional<double>>& series, std::size_t n) {
  std::size_t start = series.size() > n ? series.size() - n : 0;
  return {series.begin() + static_cast<std::ptrdiff_t>(start), series.end()};
}

}  // namespace gpuwatch::tui
