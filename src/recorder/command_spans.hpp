#pragma once
// The command line of each GPU process over time, as spans for the history
// (store/process_commands.hpp): a process keeps one span while it runs on a GPU with the same
// command from sample to sample; a new span starts when its command changes (exec, PID reuse)
// or when it comes back after a sample without it. A process whose command is not known
// (gone from /proc, another PID namespace) gets no row that sample. Pure: the recorder hands
// it each snapshot and a lookup of the command by PID, and writes what it returns.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/snapshot.hpp"
#include "recorder/span_book.hpp"
#include "store/process_commands.hpp"

namespace gpuwatch::recorder {

// PID -> its command line (arguments joined by spaces); nullopt: not known.
using CommandLookup = std::function<std::optional<std::string>(std::uint32_t pid)>;

class CommandSpans {
 public:
  // One sample: SNAPSHOT's processes, their commands from LOOKUP (asked once per PID per
  // sample; the command is clipped as stored, so a long argv compares as it is kept).
  void observe(const core::Snapshot& snapshot, const CommandLookup& lookup);
  // The spans started or extended since the last written(): what a flush writes (an upsert:
  // writing one twice is harmless).
  std::vector<store::CommandSpanRow> pending() const { return book_.pending(); }
  // The rows of pending() are in the database.
  void written() { book_.written(); }
  std::size_t open_spans() const { return book_.open_spans(); }

 private:
  SpanBook<store::CommandSpanRow> book_;
};

// The command line of PID from /proc (host/command_line.hpp), read afresh each call.
std::optional<std::string> proc_command_line(std::uint32_t pid);

}  // namespace gpuwatch::recorder
