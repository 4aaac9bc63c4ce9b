#pragma once
// serve's alerts as the HTTP side sees them: the alerts pending and firing now, the ones
// resolved lately, and the latest events with sequence numbers (for the event stream), put
// here by the alert monitor after each evaluation. Thread-safe; scrapes and API requests
// read copies and never wait for an evaluation.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

#include "alerts/alert.hpp"

namespace gpuwatch::live {

class AlertBoard {
 public:
  explicit AlertBoard(std::size_t max_events = 256, std::size_t max_resolved = 50);

  // After an evaluation: the alerts pending and firing now, and the events it emitted.
  void publish(std::vector<alerts::Alert> active, const std::vector<alerts::AlertEvent>& events);

  std::vector<alerts::Alert> active() const;
  std::vector<alerts::Alert> recently_resolved() const;  // newest first
  std::uint64_t last_seq() const;
  // Events with a sequence number above AFTER still held, oldest first.
  std::vector<std::pair<std::uint64_t, alerts::AlertEvent>> events_after(std::uint64_t after) const;
  bool evaluated() const;  // at least one publish (an engine runs)

 private:
  mutable std::mutex mutex_;
  std::size_t max_events_, max_resolved_;
  std::vector<alerts::Alert> active_;
  std::deque<alerts::Alert> resolved_;
  std::deque<std::pair<std::uint64_t, alerts::AlertEvent>> events_;
  std::uint64_t seq_ = 0;
  bool evaluated_ = false;
};

}  // namespace gpuwatch::live
