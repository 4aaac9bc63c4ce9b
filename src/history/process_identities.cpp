#include "history/process_identities.hpp"

#include <algorithm>

namespace gpuwatch::history {

core::Result<IdentityReplay> IdentityReplay::read(const store::HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                                  std::optional<std::int64_t> until_ms) {
  auto spans = store::read_command_spans(db, since_ms, until_ms);
  if (!spans) return spans.error();
  IdentityReplay out;
  out.spans_ = std::move(*spans);
  std::stable_sort(out.spans_.begin(), out.spans_.end(),
                   [](const store::CommandSpanRow& a, const store::CommandSpanRow& b) { return a.first_ms < b.first_ms; });
  return out;
}

void IdentityReplay::replay_until(std::int64_t at_ms, diagnose::Diagnoser& diagnoser) {
  for (; next_ < spans_.size() && spans_[next_].first_ms <= at_ms; ++next_) {
    diagnose::ProcessIdentity identity;
    identity.command = spans_[next_].command;
    diagnoser.identify(spans_[next_].pid, std::move(identity));
  }
}

}  // namespace gpuwatch::history
