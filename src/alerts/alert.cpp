#include "alerts/alert.hpp"

#include <cstdio>

namespace gpuwatch::alerts {

const char* to_string(Severity severity) {
  switch (severity) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Critical: return "critical";
  }
  return "warning";
}

std::optional<Severity> severity_from_string(std::string_view text) {
  if (text == "info") return Severity::Info;
  if (text == "warning") return Severity::Warning;
  if (text == "critical") return Severity::Critical;
  return std::nullopt;
}

const char* to_string(AlertState state) {
  switch (state) {
    case AlertState::Pending: return "pending";
    case AlertState::Firing: return "firing";
    case AlertState::Resolved: return "resolved";
  }
  return "pending";
}

std::optional<AlertState> alert_state_from_string(std::string_view text) {
  if (text == "pending") return AlertState::Pending;
  if (text == "firing") return AlertState::Firing;
  if (text == "resolved") return AlertState::Resolved;
  return std::nullopt;
}

const char* to_string(EventKind kind) {
  switch (kind) {
    case EventKind::Firing: return "firing";
    case EventKind::Repeat: return "repeat";
    case EventKind::Resolved: return "resolved";
  }
  return "firing";
}

// FNV-1a (64 bit) over "name\xff" "value\xff" for each label in name order (std::map keeps
// them sorted), so the same labels give the same fingerprint on every run and build.
std::string Alert::fingerprint() const {
  std::uint64_t h = 14695981039346656037ULL;
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    h ^= 0xffU;  // separator: a byte that never occurs in UTF-8 text
    h *= 1099511628211ULL;
  };
  for (const auto& [label, text] : labels) {
    mix(label);
    mix(text);
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace gpuwatch::alerts
