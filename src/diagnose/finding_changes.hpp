#pragma once
// What changed between two sets of active findings: the ones that started and the ones that
// ended, for commands that announce findings as they come and go (record) rather than show
// them all the time. A finding is the same one when its kind, GPUs and process are.
#include <span>
#include <vector>

#include "diagnose/finding.hpp"

namespace gpuwatch::diagnose {

struct FindingChanges {
  std::vector<Finding> started;    // in CURRENT, not in BEFORE (or now worse than it was)
  std::vector<Finding> ended;      // in BEFORE, not in CURRENT
};

FindingChanges finding_changes(std::span<const Finding> before, std::span<const Finding> current);

}  // namespace gpuwatch::diagnose
