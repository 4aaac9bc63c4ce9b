#include "live/alert_board.hpp"

namespace gpuwatch::live {

AlertBoard::AlertBoard(std::size_t max_events, std::size_t max_resolved)
    : max_events_(max_events == 0 ? 1 : max_events), max_resolved_(max_resolved) {}

void AlertBoard::publish(std::vector<alerts::Alert> active, const std::vector<alerts::AlertEvent>& events) {
  std::lock_guard lock(mutex_);
  evaluated_ = true;
  active_ = std::move(active);
  for (const auto& event : events) {
    events_.emplace_back(++seq_, event);
    if (events_.size() > max_events_) events_.pop_front();
    if (event.kind != alerts::EventKind::Resolved) continue;
    resolved_.push_front(event.alert);
    if (resolved_.size() > max_resolved_) resolved_.pop_back();
  }
}

std::vector<alerts::Alert> AlertBoard::active() const {
  std::lock_guard lock(mutex_);
  return active_;
}

std::vector<alerts::Alert> AlertBoard::recently_resolved() const {
  std::lock_guard lock(mutex_);
  return {resolved_.begin(), resolved_.end()};
}

std::uint64_t AlertBoard::last_seq() const {
  std::lock_guard lock(mutex_);
  return seq_;
}

std::vector<std::pair<std::uint64_t, alerts::AlertEvent>> AlertBoard::events_after(std::uint64_t after) const {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<std::uint64_t, alerts::AlertEvent>> out;
  for (const auto& entry : events_) {
    if (entry.first > after) out.push_back(entry);
  }
  return out;
}

bool AlertBoard::evaluated() const {
  std::lock_guard lock(mutex_);
  return evaluated_;
}

}  // namespace gpuwatch::live
