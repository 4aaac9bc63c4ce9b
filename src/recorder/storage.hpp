#pragma once
// The history database as `record` and `serve` (which records too) both keep it: the
// parsing of its flags (cli/storage_options.hpp adds them), and the
// recorder's upkeep of an open database: buffered writes flushed every --flush-interval,
// retention after a flush at most once a minute, and a failing database (disk full,
// locked) reported once, then again when it recovers, while the caller keeps running.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "attribution/attribution.hpp"
#include "core/snapshot.hpp"
#include "store/data_sources.hpp"
#include "store/history_database.hpp"
#include "store/history_retention.hpp"
#include "store/history_writer.hpp"
#include "recorder/command_spans.hpp"
#include "recorder/owner_spans.hpp"

namespace gpuwatch::recorder {

struct StorageArgs {
  std::string db, flush_interval = "5s";
  std::string retain_raw = "7d", retain_1m = "90d", retain_1h = "forever", max_size;
  bool no_record_commands = false;  // --no-record-commands
};

// The fields a recorder samples: identity (index, uuid, name, serial, PCI bus id) and
// every recorded column (store/history_columns.def).
std::vector<core::FieldId> recorded_fields();

struct StoragePlan {
  std::chrono::milliseconds flush_interval{5000};
  store::RetentionPolicy retention;
  store::DataSource source;  // recorded with the rows: real, or the simulated scenario
  // Keep each process's command line (store/process_commands.hpp); --no-record-commands: not.
  bool record_commands = true;
};
// Errors name the option. The source comes from the environment: simulated under
// --simulate or `sim run` (store/database_path.hpp, simulated_scenario_from_environment()).
core::Result<StoragePlan> parse_storage_args(const StorageArgs& args);

// Reports a failing output once (not every sample), and when it recovers, on stderr as
// "gpuwatch COMMAND: ...".
class OutputHealth {
 public:
  OutputHealth(std::string command, std::string name) : command_(std::move(command)), name_(std::move(name)) {}
  void update(const core::Result<void>& result);
  bool failing() const { return failing_; }

 private:
  std::string command_, name_;
  bool failing_ = false;
};

// pid -> user, looked up in /proc once per process (entries go when the pid goes).
class UserCache {
 public:
  std::optional<std::string> operator()(std::uint32_t pid);
  void keep_only(const core::Snapshot& snapshot);

 private:
  std::map<std::uint32_t, std::optional<std::string>> users_;
};

// Writes snapshots into an open database (not thread-safe: one thread owns it).
class DatabaseRecorder {
 public:
  DatabaseRecorder(store::HistoryDatabase& db, const StoragePlan& plan, std::string command);
  // Buffers SNAPSHOT (users of its processes from /proc, cached), and the command line of each
  // of its processes as spans (recorder/command_spans.hpp, unless the plan says not to).
  void add(const core::Snapshot& snapshot);
  // Where add() reads command lines (default: /proc, proc_command_line); for tests.
  void set_command_lookup(CommandLookup lookup) { command_lookup_ = std::move(lookup); }
  // The owner of each process of SNAPSHOT (issue 15: container, pod, Slurm job), by PID; kept as
  // spans (recorder/owner_spans.hpp), written with the next flush.
  void add_owners(const core::Snapshot& snapshot, const std::map<unsigned, attribution::Attribution>& owners);
  // Flushes when --flush-interval has passed (or the buffer is large), then applies retention
  // when a minute has passed since it last ran.
  void flush_if_due(std::chrono::steady_clock::time_point now);
  // Writes whatever is buffered now.
  void flush();
  // Rolls up and deletes old rows, bounds the size; FORCE: even if it ran less than a minute ago.
  void maintain(bool force);

  std::size_t written_rows() const { return written_; }
  std::size_t dropped_rows() const { return writer_.dropped_rows(); }
  std::size_t pending_rows() const { return writer_.pending_rows(); }
  // The last flush failed (its rows are still buffered).
  bool failing() const { return db_health_.failing(); }

 private:
  store::HistoryDatabase& db_;
  StoragePlan plan_;
  store::HistoryWriter writer_;
  UserCache users_;
  OwnerSpans owners_;
  CommandSpans commands_;
  CommandLookup command_lookup_ = proc_command_line;
  std::size_t written_ = 0;
  OutputHealth db_health_, retention_health_;
  std::optional<std::chrono::steady_clock::time_point> last_maintenance_;
};

}  // namespace gpuwatch::recorder
