#include "diagnose/finding.hpp"

#include <tuple>

namespace gpuwatch::diagnose {

const char* to_string(Severity severity) {
  switch (severity) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Critical: return "critical";
  }
  return "info";
}

std::optional<Severity> severity_from_string(std::string_view text) {
  if (text == "info") return Severity::Info;
  if (text == "warning") return Severity::Warning;
  if (text == "critical") return Severity::Critical;
  return std::nullopt;
}

bool finding_before(const Finding& a, const Finding& b) {
  const unsigned ga = a.gpus.empty() ? 0 : a.gpus.front();
  const unsigned gb = b.gpus.empty() ? 0 : b.gpus.front();
  return std::tie(a.start, ga, a.kind, a.pid) < std::tie(b.start, gb, b.kind, b.pid);
}

}  // namespace gpuwatch::diagnose
