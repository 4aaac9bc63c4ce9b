#include "tui/remote_source.hpp"

#include <algorithm>

namespace gpuwatch::tui {

void add_remote(const remote::RemoteState& state, Model& model) {
  if (!state.has_snapshot) {  // never answered: one row that says so
    GpuView down;
    down.host = state.name;
    down.health = GpuHealth::Down;
    down.error = state.error;
    model.gpus.push_back(std::move(down));
    return;
  }
  const remote::RemoteSnapshot& last = state.last;
  for (std::size_t i = 0; i < last.snapshot.devices.size() && i < last.status.size(); ++i) {
    GpuView v = make_gpu_view(last.snapshot.devices[i], last.status[i], last.findings);
    v.host = state.name;
    if (!state.answered) {  // the host stopped answering: its last values, marked down
      v.health = GpuHealth::Down;
      v.error = state.error + ", " + std::to_string(static_cast<long long>(state.age_seconds)) + "s ago";
      v.age_seconds = state.age_seconds;
    }
    model.gpus.push_back(std::move(v));
  }
  if (!state.answered) return;  // no processes from a host that does not answer
  for (auto& p : make_process_views(last.snapshot, {}, last.users)) {
    p.host = state.name;
    if (auto owner = last.owners.find(p.pid); owner != last.owners.end()) p.owner = owner->second;
    model.processes.push_back(std::move(p));
  }
  if (!model.driver_version) model.driver_version = last.snapshot.driver_version;
}

RemoteSource::RemoteSource(const std::vector<remote::RemoteEndpoint>& endpoints, std::chrono::milliseconds interval) {
  const auto timeout = std::clamp(interval * 2, std::chrono::milliseconds(500), std::chrono::milliseconds(3000));
  for (const auto& e : endpoints) nodes_.push_back(std::make_unique<remote::RemoteNode>(e, interval, timeout, true));
}

void RemoteSource::start() {
  for (auto& n : nodes_) n->start();
}

std::string hosts_note(const std::vector<remote::RemoteState>& states) {
  std::size_t up = 0, polled = 0;
  for (const auto& s : states) {
    if (!s.has_snapshot || !s.answered) continue;
    ++up;
    if (!s.streaming) ++polled;
  }
  std::string note = up == states.size() ? std::string("all up")
                                         : std::to_string(up) + " up, " + std::to_string(states.size() - up) + " down";
  if (polled > 0) note += " (" + std::to_string(polled) + " polled)";
  return note;
}

Model RemoteSource::read() {
  Model model;
  std::vector<remote::RemoteState> states;
  states.reserve(nodes_.size());
  for (const auto& n : nodes_) {
    states.push_back(n->state());
    add_remote(states.back(), model);
  }
  tag_vendors(model.gpus);
  model.note = hosts_note(states);
  for (const auto& state : states) {  // a host's GPUs or processes over top's caps: never a silent cut
    if (!state.has_snapshot) continue;
    if (auto capped = remote::capped_note(state.last); !capped.empty()) model.note += "; " + state.name + ": " + capped;
  }
  return model;
}

bool RemoteSource::stop() {
  for (auto& n : nodes_) n->stop();
  return true;
}

}  // namespace gpuwatch::tui
