#include "recorder/storage.hpp"

#include <fmt/core.h>

#include <cstdio>
#include <exception>

#include "store/database_path.hpp"
#include "recorder/size.hpp"
#include "core/time_spec.hpp"
#include "host/process_info.hpp"
#include "store/history_columns.hpp"

namespace gpuwatch::recorder {
namespace {

// How often retention runs (after a flush, on the recorder's thread).
constexpr std::chrono::seconds kMaintenanceEvery{60};

core::Result<void> result_of(const core::Result<std::size_t>& rows) {
  return rows ? core::Result<void>() : core::Result<void>(rows.error());
}

}  // namespace

std::vector<core::FieldId> recorded_fields() {
  std::vector<core::FieldId> fields = {core::FieldId::Index, core::FieldId::Uuid, core::FieldId::Name,
                                       core::FieldId::Serial, core::FieldId::PciBusId};
  for (const auto& column : store::history_columns()) fields.push_back(column.field);
  return fields;
}

core::Result<StoragePlan> parse_storage_args(const StorageArgs& args) {
  StoragePlan plan;
  auto flush_interval = core::parse_duration(args.flush_interval);
  if (!flush_interval) return core::make_error("--flush-interval: " + flush_interval.error().message);
  plan.flush_interval = *flush_interval;
  auto raw = core::parse_duration(args.retain_raw);
  if (!raw) return core::make_error("--retain-raw: " + raw.error().message);
  auto minute = core::parse_duration(args.retain_1m);
  if (!minute) return core::make_error("--retain-1m: " + minute.error().message);
  plan.retention.raw = *raw;
  plan.retention.minute = *minute;
  if (args.retain_1h != "forever") {
    auto hour = core::parse_duration(args.retain_1h);
    if (!hour) return core::make_error("--retain-1h: " + hour.error().message + " (or: forever)");
    plan.retention.hour = *hour;
  }
  if (!args.max_size.empty()) {
    auto size = parse_byte_size(args.max_size);
    if (!size) return core::make_error("--max-size: " + size.error().message);
    plan.retention.max_size_bytes = *size;
  }
  plan.record_commands = !args.no_record_commands;
  if (auto scenario = store::simulated_scenario_from_environment(); !scenario.empty()) plan.source = {true, scenario};
  return plan;
}

void OutputHealth::update(const core::Result<void>& result) {
  if (!result && !failing_) fmt::print(stderr, "gpuwatch {}: {}\n", command_, result.error().message);
  if (result && failing_) fmt::print(stderr, "gpuwatch {}: writing to {} again\n", command_, name_);
  failing_ = !result;
}

std::optional<std::string> UserCache::operator()(std::uint32_t pid) {
  auto found = users_.find(pid);
  if (found != users_.end()) return found->second;
  return users_[pid] = host::read_process_info(pid).user;
}

void UserCache::keep_only(const core::Snapshot& snapshot) {
  std::map<std::uint32_t, std::optional<std::string>> kept;
  for (const auto& device : snapshot.devices) {
    for (const auto& process : device.processes) {
      auto found = users_.find(process.pid);
      if (found != users_.end()) kept.insert(*found);
    }
  }
  users_.swap(kept);
}

DatabaseRecorder::DatabaseRecorder(store::HistoryDatabase& db, const StoragePlan& plan, std::string command)
    : db_(db),
      plan_(plan),
      writer_(db, store::WriterOptions{.flush_interval = plan.flush_interval, .source = plan.source}),
      db_health_(command, db.path()),
      retention_health_(command, db.path() + " (retention)") {}

void DatabaseRecorder::add(const core::Snapshot& snapshot) {
  writer_.add(snapshot, [this](std::uint32_t pid) { return users_(pid); });
  users_.keep_only(snapshot);
  if (plan_.record_commands) commands_.observe(snapshot, command_lookup_);
}

void DatabaseRecorder::add_owners(const core::Snapshot& snapshot, const std::map<unsigned, attribution::Attribution>& owners) {
  owners_.observe(snapshot, owners);
}

void DatabaseRecorder::flush_if_due(std::chrono::steady_clock::time_point now) {
  if (!writer_.flush_due(now)) return;
  flush();
  if (!db_health_.failing()) maintain(false);  // a full disk: retention would fail too (and say so again)
}

void DatabaseRecorder::flush() {
  auto rows = writer_.flush();
  if (rows) written_ += *rows;
  core::Result<void> outcome = result_of(rows);
  if (outcome) {  // after the samples, so a span never ends past the rows it stands beside
    outcome = store::write_owner_spans(db_, owners_.pending());
    if (outcome) owners_.written();
  }
  if (outcome) {
    outcome = store::write_command_spans(db_, commands_.pending());
    if (outcome) commands_.written();
  }
  db_health_.update(outcome);
}

void DatabaseRecorder::maintain(bool force) {
  const auto steady_now = std::chrono::steady_clock::now();
  if (!force && last_maintenance_ && steady_now - *last_maintenance_ < kMaintenanceEvery) return;
  last_maintenance_ = steady_now;
  // Between flushes, so it never holds up sampling for long; a failure is reported like a failed flush.
  auto result = store::apply_retention(db_, plan_.retention, store::to_unix_ms(std::chrono::system_clock::now()));
  core::Result<void> outcome = result ? core::Result<void>() : core::Result<void>(result.error());
  if (result && plan_.retention.max_size_bytes > 0) {
    try {
      db_.checkpoint();
    } catch (const std::exception& e) {  // busy or locked: the next round tries again
      outcome = core::make_error(std::string("cannot checkpoint ") + db_.path() + ": " + e.what(), 1);
    }
  }
  retention_health_.update(outcome);
}

}  // namespace gpuwatch::recorder
