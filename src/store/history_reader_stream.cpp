// for_each_snapshot: the history read row by row into reused snapshots (history_reader_stream.hpp).
// A day of 8 GPUs is ~700,000 GPU rows: building a 267-reading DeviceSnapshot per row and
// decoding every column through SQLiteCpp's Column objects cost several times what the
// diagnose engine needs to look at them, hence one device per GPU kept across rows, the
// raw column getters, and only the columns asked for.
#include "store/history_reader_stream.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <chrono>
#include <map>
#include <optional>
#include <string_view>

#include "store/history_columns.hpp"
#include "store/history_reader_internal.hpp"
#include "store/host_history.hpp"

namespace gpuwatch::store {
namespace {

using reader_detail::filter_sql;
using reader_detail::RawStatement;

SqlValue column_value(sqlite3_stmt* statement, int index) {
  switch (sqlite3_column_type(statement, index)) {
    case SQLITE_INTEGER: return static_cast<std::int64_t>(sqlite3_column_int64(statement, index));
    case SQLITE_FLOAT: return sqlite3_column_double(statement, index);
    default: return std::monostate{};  // NULL (text or blob never stored in a sample column)
  }
}

// The column's bytes as SQLiteCpp's Column::getString reads them ("" for NULL).
std::string_view column_bytes(sqlite3_stmt* statement, int index) {
  const auto* data = static_cast<const char*>(sqlite3_column_blob(statement, index));
  const int size = sqlite3_column_bytes(statement, index);
  return data == nullptr ? std::string_view() : std::string_view(data, static_cast<std::size_t>(size));
}

std::chrono::system_clock::time_point at_ms(std::int64_t ms) {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(ms));
}

// The process rows of the range, walked in step with the GPU rows: both are in
// (time_ms, gpu_id) order, so each GPU row's processes are the next rows here.
class ProcessCursor {
 public:
  ProcessCursor(const HistoryDatabase& db, const HistoryQuery& query)
      : select_(db, "SELECT time_ms, gpu_id, pid, name, type, used_memory_bytes FROM process_samples" +
                        filter_sql(query) + " ORDER BY time_ms, gpu_id, pid"),
        raw_(select_.get()) {
    select_.bind_filter(query);
    step();
  }

  // DEVICE's processes become those of (TIME_MS, GPU_ID), reusing its ProcessSamples (and
  // their names' storage). Rows before it (of GPU rows not read) are skipped.
  void fill(std::int64_t time_ms, std::int64_t gpu_id, core::DeviceSnapshot& device) {
    while (more_ && (time_ms_ < time_ms || (time_ms_ == time_ms && gpu_id_ < gpu_id))) step();
    auto& processes = device.processes;
    std::size_t count = 0;
    for (; more_ && time_ms_ == time_ms && gpu_id_ == gpu_id; step()) {
      if (count == processes.size()) processes.emplace_back();
      core::ProcessSample& process = processes[count++];
      std::string name = std::move(process.name);
      process = core::ProcessSample{};
      name.assign(column_bytes(raw_, 3));
      process.name = std::move(name);
      process.pid = static_cast<std::uint32_t>(sqlite3_column_int64(raw_, 2));
      const std::string_view type = column_bytes(raw_, 4);
      process.type = type == "G"     ? core::ProcessType::Graphics
                     : type == "C+G" ? core::ProcessType::ComputeAndGraphics
                                     : core::ProcessType::Compute;
      if (sqlite3_column_type(raw_, 5) != SQLITE_NULL) {
        process.used_memory_bytes = static_cast<std::uint64_t>(sqlite3_column_int64(raw_, 5));
      }
    }
    processes.resize(count);
    device.processes_status = count > 0 ? core::FieldStatus::Ok : core::FieldStatus::NotRead;
    device.processes_error = {};
  }

 private:
  void step() {
    more_ = select_.step();
    if (more_) {
      time_ms_ = sqlite3_column_int64(raw_, 0);
      gpu_id_ = sqlite3_column_int64(raw_, 1);
    }
  }

  RawStatement select_;
  sqlite3_stmt* raw_;
  bool more_ = false;
  std::int64_t time_ms_ = 0, gpu_id_ = 0;
};

// Groups GPU rows into snapshots by time, with one DeviceSnapshot per GPU kept across rows
// (moved into the snapshot for the visit and back after it).
class Assembler {
 public:
  Assembler(const std::vector<GpuRecord>& gpus, const SnapshotVisitor& visit, HostCursor* host = nullptr)
      : gpus_(gpus), visit_(visit), host_(host), pool_(gpus.size()), made_(gpus.size(), false), in_group_(gpus.size(), false) {}

  // The device of the GPU at ORDINAL (in gpus) for its row at TIME_MS, with its Timestamp
  // set; the snapshot before TIME_MS is visited first. nullptr for a second row of the same
  // GPU and time (the primary key rules it out).
  core::DeviceSnapshot* row(std::int64_t time_ms, std::size_t ordinal) {
    if (current_ms_ != time_ms) {
      flush();
      current_ms_ = time_ms;
    }
    if (in_group_[ordinal]) return nullptr;
    core::DeviceSnapshot& device = pool_[ordinal];
    if (!made_[ordinal]) {
      device = reader_detail::device_for(gpus_[ordinal], time_ms);
      made_[ordinal] = true;
    } else {
      device.get(core::FieldId::Timestamp) = core::FieldReading::of(static_cast<double>(time_ms) / 1000.0);
    }
    in_group_[ordinal] = true;
    group_.push_back(ordinal);
    return &device;
  }

  // Visits the snapshot being assembled, if any.
  void flush() {
    if (group_.empty()) return;
    snapshot_.timestamp = at_ms(*current_ms_);
    snapshot_.driver_version.reset();
    snapshot_.cuda_driver_version.reset();
    snapshot_.error_strings.clear();
    snapshot_.host = host_ != nullptr ? host_->at(*current_ms_) : nullptr;
    snapshot_.devices.clear();
    for (std::size_t ordinal : group_) snapshot_.devices.push_back(std::move(pool_[ordinal]));
    snapshot_.device_count = static_cast<unsigned>(snapshot_.devices.size());
    visit_(snapshot_);
    ++visited_;
    // Back to the pool, unless the visitor took them (read_history moves the snapshot away).
    const bool kept = snapshot_.devices.size() == group_.size();
    for (std::size_t k = 0; k < group_.size(); ++k) {
      const std::size_t ordinal = group_[k];
      if (kept && snapshot_.devices[k].readings.size() == core::kFieldCount) {
        pool_[ordinal] = std::move(snapshot_.devices[k]);
      } else {
        made_[ordinal] = false;
      }
      in_group_[ordinal] = false;
    }
    snapshot_.devices.clear();
    group_.clear();
  }

  // The snapshot being assembled, not visited (the rollup path appends to it), if any.
  std::optional<core::Snapshot> take() {
    if (group_.empty()) return std::nullopt;
    core::Snapshot snapshot;
    snapshot.timestamp = at_ms(*current_ms_);
    for (std::size_t ordinal : group_) {
      snapshot.devices.push_back(std::move(pool_[ordinal]));
      made_[ordinal] = false;
      in_group_[ordinal] = false;
    }
    snapshot.device_count = static_cast<unsigned>(snapshot.devices.size());
    group_.clear();
    return snapshot;
  }

  std::size_t visited() const { return visited_; }

 private:
  const std::vector<GpuRecord>& gpus_;
  const SnapshotVisitor& visit_;
  HostCursor* host_;  // null: no host attached
  core::Snapshot snapshot_;
  std::vector<core::DeviceSnapshot> pool_;  // by ordinal
  std::vector<bool> made_, in_group_;       // by ordinal: pool_ holds the GPU's device / it is in group_
  std::vector<std::size_t> group_;          // ordinals of the rows at current_ms_, in row order
  std::optional<std::int64_t> current_ms_;
  std::size_t visited_ = 0;
};

}  // namespace

namespace reader_detail {

RawStatement::RawStatement(const HistoryDatabase& db, const std::string& sql) : db_(db.sql().getHandle()) {
  check(sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &statement_, nullptr));
}

RawStatement::~RawStatement() { sqlite3_finalize(statement_); }

void RawStatement::bind_filter(const HistoryQuery& query) {
  if (query.since_ms) bind(":since", *query.since_ms);
  if (query.until_ms) bind(":until", *query.until_ms);
  if (query.gpu_index) bind(":gpu_index", static_cast<std::int64_t>(*query.gpu_index));
  if (query.gpu_uuid) {
    check(sqlite3_bind_text(statement_, sqlite3_bind_parameter_index(statement_, ":gpu_uuid"), query.gpu_uuid->c_str(),
                            static_cast<int>(query.gpu_uuid->size()), SQLITE_TRANSIENT));
  }
}

void RawStatement::bind(const char* name, std::int64_t value) {
  check(sqlite3_bind_int64(statement_, sqlite3_bind_parameter_index(statement_, name), value));
}

bool RawStatement::step() {
  const int rc = sqlite3_step(statement_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) check(rc);
  return false;
}

void RawStatement::check(int rc) const {
  if (rc != SQLITE_OK) throw SQLite::Exception(db_, rc);
}

}  // namespace reader_detail

core::Result<std::size_t> for_each_snapshot(const HistoryDatabase& db, const HistoryQuery& query,
                                            const SnapshotVisitor& visit) {
  auto gpus = read_gpus(db);
  if (!gpus) return gpus.error();
  std::map<std::int64_t, std::size_t> ordinal_by_id;
  std::map<std::int64_t, const GpuRecord*> gpu_by_id;
  for (std::size_t i = 0; i < gpus->size(); ++i) {
    ordinal_by_id[(*gpus)[i].id] = i;
    gpu_by_id[(*gpus)[i].id] = &(*gpus)[i];
  }
  try {
    const auto columns = reader_detail::selected_columns(query);
    const bool raw = query.resolution == Resolution::Raw;
    const std::string suffix = raw                                      ? ""
                               : query.statistic == Statistic::Min ? "_min"
                               : query.statistic == Statistic::Max ? "_max"
                                                                   : "_avg";
    const char* table = raw ? "gpu_samples" : query.resolution == Resolution::Minute ? "gpu_samples_1m" : "gpu_samples_1h";
    const auto present = reader_detail::table_columns(db, table);
    std::string sql = "SELECT time_ms, gpu_id";
    for (const auto* column : columns) sql += ", " + reader_detail::column_or_null(column->name + suffix, present);
    sql += std::string(" FROM ") + table + filter_sql(query) + " ORDER BY time_ms, gpu_id";
    if (query.limit > 0) sql += " LIMIT " + std::to_string(query.limit);
    RawStatement select(db, sql);
    select.bind_filter(query);
    sqlite3_stmt* const row = select.get();
    std::optional<ProcessCursor> processes;
    if (query.processes && raw) processes.emplace(db, query);

    std::optional<HostCursor> host;
    if (query.host && raw) host.emplace(db, query.since_ms, query.until_ms);
    Assembler assembler(*gpus, visit, host ? &*host : nullptr);
    std::size_t rows = 0;
    while (select.step()) {
      const std::int64_t time_ms = sqlite3_column_int64(row, 0);
      const std::int64_t gpu_id = sqlite3_column_int64(row, 1);
      const auto gpu = ordinal_by_id.find(gpu_id);
      if (gpu == ordinal_by_id.end()) continue;
      core::DeviceSnapshot* device = assembler.row(time_ms, gpu->second);
      if (device == nullptr) continue;
      for (std::size_t i = 0; i < columns.size(); ++i) {
        decode_reading_into(*columns[i], column_value(row, static_cast<int>(i) + 2), device->get(columns[i]->field));
      }
      if (processes) processes->fill(time_ms, gpu_id, *device);
      ++rows;
    }
    if (raw) {
      assembler.flush();
      return assembler.visited();
    }
    // Rollups exist only for data older than --retain-raw: newer rows are aggregated here,
    // possibly into the snapshot still being assembled.
    std::vector<core::Snapshot> tail;
    if (auto last = assembler.take()) tail.push_back(std::move(*last));
    reader_detail::append_unrolled_buckets(db, query, columns, gpu_by_id, tail, rows);
    for (auto& snapshot : tail) visit(snapshot);
    return assembler.visited() + tail.size();
  } catch (const SQLite::Exception& e) {
    return core::make_error(std::string("cannot read the history: ") + e.what(), 1);
  }
}

}  // namespace gpuwatch::store
