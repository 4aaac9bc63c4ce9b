#pragma once
// Test support: scores a diagnosis against what a scenario should produce. A miss is an
// expected (kind, GPU) with no finding; a false positive is a finding at warning or worse
// that was neither expected nor tolerated. Both count the same.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "diagnose/finding.hpp"

namespace gpuwatch::diagnose::testing {

using KindGpu = std::pair<std::string, unsigned>;

struct Expectation {
  std::string name;
  std::vector<KindGpu> expected;   // each must be found (any severity)
  std::vector<KindGpu> tolerated;  // may appear at any severity
};

struct Score {
  int misses = 0, false_positives = 0;
  std::string report;
};

inline std::string describe(const Finding& f) {
  std::ostringstream o;
  o << f.kind << "@";
  for (unsigned g : f.gpus) o << g << (g == f.gpus.back() ? "" : ",");
  o << " " << to_string(f.severity) << " [" << f.summary << "]";
  return o.str();
}

inline Score score(const Expectation& e, const std::vector<Finding>& findings) {
  Score s;
  std::ostringstream o;
  auto involves = [](const Finding& f, const KindGpu& kg) {
    if (f.kind != kg.first) return false;
    for (unsigned g : f.gpus)
      if (g == kg.second) return true;
    return false;
  };
  for (const auto& kg : e.expected) {
    bool found = false;
    for (const auto& f : findings) found = found || involves(f, kg);
    if (!found) {
      ++s.misses;
      o << "  MISS " << kg.first << "@" << kg.second << "\n";
    }
  }
  for (const auto& f : findings) {
    if (f.severity < Severity::Warning) continue;
    bool ok = false;
    for (const auto& kg : e.expected) ok = ok || involves(f, kg);
    for (const auto& kg : e.tolerated) ok = ok || involves(f, kg);
    if (!ok) {
      ++s.false_positives;
      o << "  FALSE POSITIVE " << describe(f) << "\n";
    }
  }
  s.report = o.str();
  return s;
}

// Prints every finding of a run (on failure, and with GPUWATCH_DIAGNOSE_VERBOSE set).
inline std::string listing(const std::vector<Finding>& findings) {
  std::ostringstream o;
  for (const auto& f : findings) o << "    " << describe(f) << "\n";
  return o.str();
}

}  // namespace gpuwatch::diagnose::testing
