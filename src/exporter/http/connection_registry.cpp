#include "exporter/http/connection_registry.hpp"

#include <utility>
#include <vector>

namespace gpuwatch::exporter::http {

bool is_evictable(Phase phase) { return phase == Phase::Handshake || phase == Phase::Idle || phase == Phase::Reading; }

std::optional<ConnectionRegistry::Id> ConnectionRegistry::admit(Clock::time_point now, Phase phase,
                                                                std::function<void()> close) {
  if (counted_ >= max_) {
    auto oldest = open_.end();
    for (auto it = open_.begin(); it != open_.end(); ++it) {
      if (is_evictable(it->second.phase) && (oldest == open_.end() || it->second.since < oldest->second.since)) oldest = it;
    }
    if (oldest == open_.end()) {
      ++refusals_;
      return std::nullopt;
    }
    auto evicted = std::move(oldest->second.close);
    erase(oldest);
    ++evictions_;
    if (evicted) evicted();
  }
  const Id id = next_++;
  open_.emplace(id, Entry{phase, now, std::move(close), true});
  ++counted_;
  return id;
}

ConnectionRegistry::Id ConnectionRegistry::track(Clock::time_point now, std::function<void()> close) {
  const Id id = next_++;
  open_.emplace(id, Entry{Phase::Answering, now, std::move(close), false});
  return id;
}

void ConnectionRegistry::set_phase(Id id, Phase phase, Clock::time_point now) {
  auto found = open_.find(id);
  if (found == open_.end()) return;
  found->second.phase = phase;
  found->second.since = now;
}

void ConnectionRegistry::erase(std::map<Id, Entry>::iterator it) {
  if (it->second.counted) --counted_;
  open_.erase(it);
}

void ConnectionRegistry::remove(Id id) {
  auto found = open_.find(id);
  if (found != open_.end()) erase(found);
}

void ConnectionRegistry::close_all() {
  std::vector<std::function<void()>> closers;
  for (auto& [id, entry] : open_) closers.push_back(std::move(entry.close));
  open_.clear();
  counted_ = 0;
  for (auto& close : closers) {
    if (close) close();
  }
}

std::optional<Phase> ConnectionRegistry::phase(Id id) const {
  auto found = open_.find(id);
  if (found == open_.end()) return std::nullopt;
  return found->second.phase;
}

}  // namespace gpuwatch::exporter::http
