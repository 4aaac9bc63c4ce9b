#include "diagnose/finding_changes.hpp"

#include <algorithm>

namespace gpuwatch::diagnose {

namespace {

bool same(const Finding& a, const Finding& b) { return a.kind == b.kind && a.gpus == b.gpus && a.pid == b.pid; }

const Finding* find_same(std::span<const Finding> in, const Finding& f) {
  auto it = std::find_if(in.begin(), in.end(), [&](const Finding& x) { return same(x, f); });
  return it == in.end() ? nullptr : &*it;
}

}  // namespace

FindingChanges finding_changes(std::span<const Finding> before, std::span<const Finding> current) {
  FindingChanges out;
  for (const auto& f : current) {
    const Finding* was = find_same(before, f);
    if (was == nullptr || f.severity > was->severity) out.started.push_back(f);
  }
  for (const auto& f : before) {
    if (find_same(current, f) == nullptr) out.ended.push_back(f);
  }
  return out;
}

}  // namespace gpuwatch::diagnose
