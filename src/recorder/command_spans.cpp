#include "recorder/command_spans.hpp"

#include <map>

#include "host/command_line.hpp"
#include "recorder/gpu_key.hpp"
#include "store/history_writer.hpp"  // to_unix_ms

namespace gpuwatch::recorder {

void CommandSpans::observe(const core::Snapshot& snapshot, const CommandLookup& lookup) {
  const std::int64_t t = store::to_unix_ms(snapshot.timestamp);
  std::map<std::uint32_t, std::optional<std::string>> commands;  // one lookup per PID per sample
  book_.begin(t);
  for (const auto& device : snapshot.devices) {
    const std::string key = history_gpu_key(device);
    for (const auto& process : device.processes) {
      auto known = commands.find(process.pid);
      if (known == commands.end()) {
        auto command = lookup(process.pid);
        if (command && command->empty()) command.reset();  // absent, never ''
        if (command) command = store::clip_command(*command);
        known = commands.emplace(process.pid, std::move(command)).first;
      }
      if (!known->second) continue;
      const std::string& command = *known->second;
      book_.see(
          key, process.pid, [&](const store::CommandSpanRow& open) { return open.command == command; },
          [](store::CommandSpanRow&) {}, [&] { return store::CommandSpanRow{key, process.pid, t, t, command}; });
    }
  }
  book_.end();
}

std::optional<std::string> proc_command_line(std::uint32_t pid) {
  // A little more than is stored: enough to clip on a character boundary, never a huge argv.
  return host::read_command_line(pid, store::kMaxCommandBytes + 8);
}

}  // namespace gpuwatch::recorder
