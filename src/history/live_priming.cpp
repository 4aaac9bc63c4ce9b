#include "history/live_priming.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "history/findings.hpp"

namespace gpuwatch::history {
namespace {

constexpr const char* kNoHistory = "no history";

std::string age_text(std::int64_t ms) {
  const std::int64_t s = ms / 1000;
  if (s < 120) return fmt::format("{} s", s);
  if (s < 7200) return fmt::format("{} min", s / 60);
  if (s < 2 * 86400) return fmt::format("{} h", s / 3600);
  return fmt::format("{} days", s / 86400);
}

// The live GPUs' UUIDs by index (those read).
std::map<unsigned, std::string> live_uuids(const core::Snapshot& live) {
  std::map<unsigned, std::string> out;
  for (const auto& device : live.devices) {
    if (device.state != core::DeviceState::Ok) continue;
    if (auto uuid = device.get(core::FieldId::Uuid).as_string(); uuid && !uuid->empty()) out[device.index] = *uuid;
  }
  return out;
}

bool has_device(const core::Snapshot& live, unsigned index) {
  return std::any_of(live.devices.begin(), live.devices.end(), [&](const core::DeviceSnapshot& d) { return d.index == index; });
}

}  // namespace

PrimingChoice choose_priming_window(const std::vector<store::GpuRecord>& recorded, const core::Snapshot& live,
                                    std::int64_t now_ms) {
  PrimingChoice out;
  if (recorded.empty()) {
    out.skipped = kNoHistory;
    return out;
  }
  std::int64_t latest = recorded.front().last_seen_ms;
  for (const auto& gpu : recorded) latest = std::max(latest, gpu.last_seen_ms);
  if (latest < now_ms - kPrimingMaxAge.count()) {
    out.skipped = fmt::format("its latest sample is {} old (more than the diagnosis's {} s windows)",
                              age_text(now_ms - latest), kPrimingMaxAge.count() / 1000);
    return out;
  }
  const PrimingWindow window{now_ms - kPrimingSpan.count(), now_ms};
  const auto uuids = live_uuids(live);
  if (!live.devices.empty()) {  // no live identities: this node cannot be told from another
    for (const auto& gpu : recorded) {
      if (gpu.last_seen_ms < window.since_ms || !gpu.index) continue;  // not in the window, or no index to feed
      if (!has_device(live, *gpu.index)) {
        out.skipped = fmt::format("it was recorded on another node (it has a GPU {}, this node has {} GPU(s))", *gpu.index,
                                  live.devices.size());
        return out;
      }
      auto now_uuid = uuids.find(*gpu.index);
      if (gpu.uuid && !gpu.uuid->empty() && now_uuid != uuids.end() && *gpu.uuid != now_uuid->second) {
        out.skipped = fmt::format("it was recorded on another node (GPU {} was {}, it is {} here)", *gpu.index, *gpu.uuid,
                                  now_uuid->second);
        return out;
      }
    }
  }
  out.window = window;
  return out;
}

Priming prime_diagnoser(const store::HistoryDatabase& db, const core::Snapshot& live,
                        std::chrono::system_clock::time_point now, diagnose::Diagnoser& diagnoser) {
  Priming out;
  auto gpus = store::read_gpus(db);
  if (!gpus) {
    out.skipped = gpus.error().message;
    return out;
  }
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  auto choice = choose_priming_window(*gpus, live, now_ms);
  if (!choice.window) {
    out.skipped = std::move(choice.skipped);
    return out;
  }
  auto fed = feed_recorded(db, choice.window->since_ms, choice.window->until_ms, diagnoser);
  if (!fed) {
    diagnoser = diagnose::Diagnoser();  // half fed is worse than not fed
    out.skipped = fed.error().message;
    return out;
  }
  if (fed->snapshots == 0) {
    out.skipped = fmt::format("no sample in its last {} min", kPrimingSpan.count() / 60000);
    return out;
  }
  out.window = choice.window;
  out.snapshots = fed->snapshots;
  return out;
}

Priming prime_diagnoser(const std::string& path, const core::Snapshot& live,
                        std::chrono::system_clock::time_point now, diagnose::Diagnoser& diagnoser) {
  std::error_code ec;
  Priming out;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec)) {
    out.skipped = kNoHistory;
    return out;
  }
  store::OpenOptions options;
  options.read_only = true;
  options.single_thread = true;
  options.busy_timeout_ms = 200;  // a writer's batch never holds a start up for long
  auto db = store::HistoryDatabase::open(path, options);
  if (!db) {
    out.skipped = db.error().message;
    return out;
  }
  return prime_diagnoser(**db, live, now, diagnoser);
}

std::string describe_priming(const Priming& priming, const diagnose::Diagnoser& diagnoser) {
  if (priming.window) {
    const auto active = diagnoser.findings().size();
    return fmt::format("diagnosis continues from the recorded history: {} samples of the last {} min, {} active finding{}",
                       priming.snapshots, kPrimingSpan.count() / 60000, active, active == 1 ? "" : "s");
  }
  if (priming.skipped.empty() || priming.skipped == kNoHistory) return "";
  return "diagnosis starts afresh, not from the recorded history: " + priming.skipped;
}

}  // namespace gpuwatch::history
