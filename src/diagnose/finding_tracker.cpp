#include "diagnose/finding_tracker.hpp"

#include <algorithm>

#include "diagnose/gpu_sample.hpp"

namespace gpuwatch::diagnose {

std::chrono::system_clock::time_point FindingTracker::from_seconds_(double t_s) { return from_seconds(t_s); }

void FindingTracker::set_uuid(unsigned gpu, const std::string& uuid) {
  auto it = uuids_.find(gpu);
  if (it == uuids_.end()) uuids_.emplace(gpu, uuid);
  else if (it->second != uuid) it->second = uuid;
}

void FindingTracker::start(Open& o, const TrackKey& key, Severity severity, double t_s) {
  o.raised = true;
  Finding& f = o.finding;
  f.kind = std::string(kind_id(key.kind));
  f.severity = severity;
  if (f.gpus.empty()) f.gpus = {key.gpu};
  refresh_uuids(f);
  f.start = from_seconds(t_s);
  f.end = f.start;
  f.active = true;
  if (key.kind == Kind::MemoryLeak) f.pid = static_cast<std::uint32_t>(key.sub);
  auto vendor = vendors_.find(key.gpu);
  f.advice = default_advice(key.kind, vendor == vendors_.end() ? core::Vendor::Nvidia : vendor->second);
}

void FindingTracker::refresh_uuids(Finding& f) const {
  if (f.uuids.size() == f.gpus.size()) return;
  f.uuids.clear();
  for (unsigned g : f.gpus) {
    auto u = uuids_.find(g);
    f.uuids.push_back(u == uuids_.end() ? std::string() : u->second);
  }
}

void FindingTracker::falsify(Map::iterator it, double t_s, Hysteresis h) {
  Open& o = it->second;
  o.streak = 0;
  if (!o.raised) {
    open_.erase(it);
    return;
  }
  if (!o.false_since_s) o.false_since_s = t_s;
  if (t_s - *o.false_since_s >= h.clear_after_s) close(it);
}

void FindingTracker::close(Map::iterator it) {
  Finding f = std::move(it->second.finding);
  f.active = false;
  f.end = from_seconds(it->second.last_true_s);
  closed_.push_back(std::move(f));
  open_.erase(it);
}

void FindingTracker::end_gpu(unsigned gpu, double t_s, std::initializer_list<Kind> keep) {
  for (auto it = open_.begin(); it != open_.end();) {
    auto next = std::next(it);
    const bool kept = std::find(keep.begin(), keep.end(), it->first.kind) != keep.end();
    if (it->first.gpu == gpu && !kept) {
      if (it->second.raised) close(it);
      else open_.erase(it);
    }
    it = next;
  }
  (void)t_s;
}

bool FindingTracker::is_active(const TrackKey& key) const {
  auto it = open_.find(key);
  return it != open_.end() && it->second.raised;
}

const Finding* FindingTracker::find(const TrackKey& key) const {
  auto it = open_.find(key);
  return it != open_.end() && it->second.raised ? &it->second.finding : nullptr;
}

std::vector<Finding> FindingTracker::active() const {
  std::vector<Finding> out;
  for (const auto& [key, o] : open_)
    if (o.raised) out.push_back(o.finding);
  std::sort(out.begin(), out.end(), finding_before);
  return out;
}

std::vector<Finding> FindingTracker::all() const {
  std::vector<Finding> out = closed_;
  for (const auto& [key, o] : open_)
    if (o.raised) out.push_back(o.finding);
  std::sort(out.begin(), out.end(), finding_before);
  return out;
}

}  // namespace gpuwatch::diagnose
