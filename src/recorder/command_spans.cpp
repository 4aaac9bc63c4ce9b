#include "recorder/command_spans.hpp"

#include <map>

#include "host/command_line.hpp"
#include "recorder/gpu_key.hpp"
#include "store/history_writer.hpp"  // to_unix_ms

namespace gpuwatch::recorder {

void CommandSpans::observe(const core::Snapshot& snapshot, const CommandLookup& lookup) {
  const std::int64_t t = store::to_unix_ms(snapshot.timestamp);
  std::map<std::uint32_t, std::optional<std::string>> commands;  // one lookup per PID per sample
  std::map<Key, Span> seen;
  for (const auto& device : snapshot.devices) {
    const std::string key = history_gpu_key(device);
    for (const auto& process : device.processes) {
      const Key k{key, process.pid};
      if (seen.count(k)) continue;  // a PID listed twice on one GPU (compute and graphics)
      auto known = commands.find(process.pid);
      if (known == commands.end()) {
        auto command = lookup(process.pid);
        if (command && command->empty()) command.reset();  // absent, never ''
        if (command) command = store::clip_command(*command);
        known = commands.emplace(process.pid, std::move(command)).first;
      }
      if (!known->second) continue;
      auto open = open_.find(k);
      if (open != open_.end() && open->second.row.command == *known->second && t >= open->second.row.last_ms) {
        Span span = std::move(open->second);
        span.row.last_ms = t;
        span.dirty = true;
        open_.erase(open);
        seen.emplace(k, std::move(span));
        continue;
      }
      seen.emplace(k, Span{store::CommandSpanRow{key, process.pid, t, t, *known->second}, true});
    }
  }
  // What was open and is not in this sample (gone, or another command now) has ended.
  for (auto& [k, span] : open_) {
    if (span.dirty) closed_.push_back(std::move(span.row));
  }
  open_ = std::move(seen);
}

std::vector<store::CommandSpanRow> CommandSpans::pending() const {
  std::vector<store::CommandSpanRow> out = closed_;
  for (const auto& [k, span] : open_) {
    if (span.dirty) out.push_back(span.row);
  }
  return out;
}

void CommandSpans::written() {
  closed_.clear();
  for (auto& [k, span] : open_) span.dirty = false;
}

std::optional<std::string> proc_command_line(std::uint32_t pid) {
  // A little more than is stored: enough to clip on a character boundary, never a huge argv.
  return host::read_command_line(pid, store::kMaxCommandBytes + 8);
}

}  // namespace gpuwatch::recorder
