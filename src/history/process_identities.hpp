#pragma once
// The recorded command lines (store/process_commands.hpp) as the diagnose engine's process
// identities (diagnose/jobs.hpp), replayed in time order with the samples, so that the GPUs of
// one job are grouped by their command line ("torchrun … train.py", the ranks' numbers taken
// out), not only by NVML's process name ("python"). Issue 23, "one cause per job".
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/result.hpp"
#include "diagnose/diagnoser.hpp"
#include "store/history_database.hpp"
#include "store/process_commands.hpp"

namespace gpuwatch::history {

class IdentityReplay {
 public:
  // The command spans overlapping SINCE..UNTIL; a file without them replays nothing.
  static core::Result<IdentityReplay> read(const store::HistoryDatabase& db, std::optional<std::int64_t> since_ms,
                                           std::optional<std::int64_t> until_ms);
  // Tells DIAGNOSER the command of every span that began at or before AT_MS and was not told yet.
  void replay_until(std::int64_t at_ms, diagnose::Diagnoser& diagnoser);

 private:
  std::vector<store::CommandSpanRow> spans_;  // by first_ms
  std::size_t next_ = 0;
};

}  // namespace gpuwatch::history
