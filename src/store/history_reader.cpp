#include "store/history_reader.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <map>

#include "store/history_columns.hpp"
#include "store/sql_values.hpp"
#include "store/history_reader_internal.hpp"
#include "store/history_reader_stream.hpp"
#include "store/process_commands.hpp"

namespace gpuwatch::store {
namespace {

using reader_detail::bind_filter;
using reader_detail::filter_sql;

using core::FieldId;
using core::FieldReading;

void set_text(core::DeviceSnapshot& device, FieldId id, const std::optional<std::string>& text) {
  device.get(id) = text ? FieldReading::of(*text) : FieldReading::absent(core::FieldStatus::NotSupported);
}

}  // namespace

namespace reader_detail {

std::vector<const HistoryColumn*> selected_columns(const HistoryQuery& query) {
  std::vector<const HistoryColumn*> out;
  for (const auto& column : history_columns()) {
    if (!query.columns || std::find(query.columns->begin(), query.columns->end(), column.field) != query.columns->end()) {
      out.push_back(&column);
    }
  }
  return out;
}

std::set<std::string> table_columns(const HistoryDatabase& db, const std::string& table) {
  std::set<std::string> names;
  SQLite::Statement info(db.sql(), "PRAGMA table_info(" + table + ")");
  while (info.executeStep()) names.insert(info.getColumn(1).getString());
  return names;
}

std::string column_or_null(const std::string& name, const std::set<std::string>& present) {
  return present.count(name) != 0 ? name : std::string("NULL");
}

std::string filter_sql(const HistoryQuery& query) {
  std::string sql = " WHERE 1";
  if (query.since_ms) sql += " AND time_ms >= :since";
  if (query.until_ms) sql += " AND time_ms <= :until";
  if (query.gpu_index) sql += " AND gpu_id IN (SELECT id FROM gpus WHERE gpu_index = :gpu_index)";
  if (query.gpu_uuid) sql += " AND gpu_id IN (SELECT id FROM gpus WHERE uuid = :gpu_uuid)";
  return sql;
}

void bind_filter(SQLite::Statement& statement, const HistoryQuery& query) {
  if (query.since_ms) statement.bind(":since", static_cast<std::int64_t>(*query.since_ms));
  if (query.until_ms) statement.bind(":until", static_cast<std::int64_t>(*query.until_ms));
  if (query.gpu_index) statement.bind(":gpu_index", static_cast<std::int64_t>(*query.gpu_index));
  if (query.gpu_uuid) statement.bind(":gpu_uuid", *query.gpu_uuid);
}

core::DeviceSnapshot device_for(const GpuRecord& gpu, std::int64_t time_ms) {
  core::DeviceSnapshot device;
  device.index = gpu.index.value_or(0);
  device.vendor = gpu.vendor;
  if (gpu.index) device.get(FieldId::Index) = FieldReading::of(std::int64_t{*gpu.index});
  set_text(device, FieldId::Uuid, gpu.uuid);
  set_text(device, FieldId::Name, gpu.name);
  set_text(device, FieldId::Serial, gpu.serial);
  set_text(device, FieldId::PciBusId, gpu.pci_bus_id);
  set_text(device, FieldId::Vendor, std::string(core::to_string(gpu.vendor)));
  device.get(FieldId::Timestamp) = FieldReading::of(static_cast<double>(time_ms) / 1000.0);
  return device;
}

}  // namespace reader_detail

core::Result<std::vector<GpuRecord>> read_gpus(const HistoryDatabase& db) {
  try {
    std::vector<GpuRecord> gpus;
    SQLite::Statement select(db.sql(),
                             "SELECT id, gpu_key, uuid, gpu_index, name, serial, pci_bus_id, first_seen_ms, last_seen_ms, vendor "
                             "FROM gpus ORDER BY gpu_index, id");
    while (select.executeStep()) {
      GpuRecord gpu;
      gpu.id = select.getColumn(0).getInt64();
      gpu.gpu_key = select.getColumn(1).getString();
      gpu.uuid = optional_text(select.getColumn(2));
      if (!select.getColumn(3).isNull()) gpu.index = static_cast<unsigned>(select.getColumn(3).getInt64());
      gpu.name = optional_text(select.getColumn(4));
      gpu.serial = optional_text(select.getColumn(5));
      gpu.pci_bus_id = optional_text(select.getColumn(6));
      gpu.first_seen_ms = select.getColumn(7).getInt64();
      gpu.last_seen_ms = select.getColumn(8).getInt64();
      // A word this build does not know (a newer gpuwatch's vendor) reads as NVIDIA, as before schema 15.
      gpu.vendor = core::vendor_from_string(select.getColumn(9).getText("")).value_or(core::Vendor::Nvidia);
      gpus.push_back(std::move(gpu));
    }
    return gpus;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read the GPUs of the history: ") + e.what(), 1);
  }
}

core::Result<void> check_gpu_selection(const HistoryDatabase& db, const HistoryQuery& query) {
  if (!query.gpu_index && !query.gpu_uuid) return {};
  auto gpus = read_gpus(db);
  if (!gpus) return gpus.error();
  std::string known;
  for (const auto& gpu : *gpus) {
    if (query.gpu_index && gpu.index == query.gpu_index) return {};
    if (query.gpu_uuid && gpu.uuid == query.gpu_uuid) return {};
    known += known.empty() ? "" : ", ";
    known += gpu.index ? std::to_string(*gpu.index) : std::string("?");
    known += " (" + gpu.uuid.value_or(gpu.gpu_key) + (gpu.name ? ", " + *gpu.name : std::string()) + ")";
  }
  const std::string wanted = query.gpu_index ? "GPU " + std::to_string(*query.gpu_index) : "GPU " + *query.gpu_uuid;
  if (known.empty()) return core::make_error("no " + wanted + " in " + db.path() + ": it has no GPU recorded yet", 2);
  return core::make_error("no " + wanted + " in " + db.path() + "; it has GPU " + known, 2);
}

core::Result<std::vector<core::Snapshot>> read_history(const HistoryDatabase& db, const HistoryQuery& query) {
  std::vector<core::Snapshot> snapshots;
  // Taking the snapshot (not copying it) leaves the reader to make the next one afresh.
  auto visited = for_each_snapshot(db, query, [&](core::Snapshot& snapshot) { snapshots.push_back(std::move(snapshot)); });
  if (!visited) return visited.error();
  return snapshots;
}

core::Result<std::vector<ProcessSummary>> read_process_summaries(const HistoryDatabase& db, const HistoryQuery& query) {
  auto gpus = read_gpus(db);
  if (!gpus) return gpus.error();
  std::map<std::int64_t, const GpuRecord*> gpu_by_id;
  for (const auto& gpu : *gpus) gpu_by_id[gpu.id] = &gpu;
  try {
    // One scan in primary-key order (time_ms, gpu_id, pid), grouped here: a GROUP BY in
    // SQL would sort every process row of the range first (slow over a day of samples).
    auto spans = read_command_spans(db, query.since_ms, query.until_ms);
    if (!spans) return spans.error();
    const CommandIndex commands(std::move(*spans));
    SQLite::Statement select(db.sql(), "SELECT gpu_id, pid, name, user, used_memory_bytes, time_ms FROM process_samples" +
                                           filter_sql(query) + " ORDER BY time_ms, gpu_id, pid");
    bind_filter(select, query);
    std::vector<ProcessSummary> summaries;
    struct Seen {
      std::vector<std::size_t> summaries;
      const std::vector<CommandSpanRow>* commands = nullptr;  // its command spans (looked up once)
    };
    std::map<std::pair<std::int64_t, std::int64_t>, Seen> by_pid;  // (gpu id, pid) -> summaries
    while (select.executeStep()) {
      const std::int64_t gpu_id = select.getColumn(0).getInt64();
      const std::int64_t pid = select.getColumn(1).getInt64();
      const char* name = select.getColumn(2).getText("");
      const std::int64_t time_ms = select.getColumn(5).getInt64();
      auto gpu = gpu_by_id.find(gpu_id);
      auto [seen, first] = by_pid.try_emplace({gpu_id, pid});
      if (first && !commands.empty() && gpu != gpu_by_id.end()) {
        seen->second.commands = commands.spans_of(gpu->second->gpu_key, static_cast<std::uint32_t>(pid));
      }
      const std::string* command = CommandIndex::at(seen->second.commands, time_ms);
      auto& candidates = seen->second.summaries;
      // Same name and command; a sample whose command is not known joins the latest of that
      // name, and a summary without a command yet takes the first one known.
      ProcessSummary* s = nullptr;
      for (std::size_t i : candidates) {
        if (summaries[i].name != name) continue;
        if (command == nullptr || !summaries[i].command || *summaries[i].command == *command) s = &summaries[i];
      }
      if (s != nullptr && command != nullptr && !s->command) s->command = *command;
      if (s == nullptr) {
        candidates.push_back(summaries.size());
        s = &summaries.emplace_back();
        s->pid = static_cast<std::uint32_t>(pid);
        s->name = name;
        if (command != nullptr) s->command = *command;
        s->first_seen_ms = time_ms;
        if (gpu != gpu_by_id.end()) {
          s->gpu_index = gpu->second->index;
          s->gpu_uuid = gpu->second->uuid;
        }
      }
      const SQLite::Column user = select.getColumn(3);
      if (!user.isNull() && (!s->user || user.getString() > *s->user)) s->user = user.getString();
      const SQLite::Column memory = select.getColumn(4);
      if (!memory.isNull()) {
        const auto bytes = static_cast<std::uint64_t>(memory.getInt64());
        if (!s->max_used_memory_bytes || bytes > *s->max_used_memory_bytes) s->max_used_memory_bytes = bytes;
      }
      s->last_seen_ms = time_ms;
      ++s->samples;
    }
    // By first appearance, then GPU index, then pid (as before).
    std::stable_sort(summaries.begin(), summaries.end(), [](const ProcessSummary& a, const ProcessSummary& b) {
      if (a.first_seen_ms != b.first_seen_ms) return a.first_seen_ms < b.first_seen_ms;
      if (a.gpu_index != b.gpu_index) return a.gpu_index < b.gpu_index;
      return a.pid < b.pid;
    });
    return summaries;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read the processes of the history: ") + e.what(), 1);
  }
}

core::Result<HistoryCounts> count_history(const HistoryDatabase& db) {
  try {
    HistoryCounts counts;
    counts.gpu_samples = db.sql().execAndGet("SELECT count(*) FROM gpu_samples").getInt64();
    counts.process_samples = db.sql().execAndGet("SELECT count(*) FROM process_samples").getInt64();
    counts.gpus = db.sql().execAndGet("SELECT count(*) FROM gpus").getInt64();
    SQLite::Statement range(db.sql(), "SELECT min(time_ms), max(time_ms) FROM gpu_samples");
    if (range.executeStep() && !range.getColumn(0).isNull()) {
      counts.first_ms = range.getColumn(0).getInt64();
      counts.last_ms = range.getColumn(1).getInt64();
    }
    return counts;
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot count the history: ") + e.what(), 1);
  }
}

}  // namespace gpuwatch::store
