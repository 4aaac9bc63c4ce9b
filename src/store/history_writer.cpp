#include "store/history_writer.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <cstdint>

namespace gpuwatch::store {
namespace {

using core::FieldId;

std::optional<std::string> text_of(const core::DeviceSnapshot& device, FieldId id) {
  return device.get(id).as_string();
}

void bind_value(SQLite::Statement& statement, int position, const SqlValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    statement.bind(position, static_cast<std::int64_t>(*i));
  } else if (const auto* d = std::get_if<double>(&value)) {
    statement.bind(position, *d);
  } else {
    statement.bind(position);  // NULL
  }
}

template <typename T>
void bind_optional(SQLite::Statement& statement, int position, const std::optional<T>& value) {
  if (!value) {
    statement.bind(position);
  } else if constexpr (std::is_same_v<T, std::string>) {
    statement.bind(position, *value);
  } else {
    statement.bind(position, static_cast<std::int64_t>(*value));
  }
}

std::string insert_sample_sql() {
  std::string names = "time_ms, gpu_id", params = "?, ?";
  for (const auto& column : history_columns()) {
    names += ", " + column.name;
    params += ", ?";
  }
  return "INSERT OR REPLACE INTO gpu_samples (" + names + ") VALUES (" + params + ")";
}

}  // namespace

std::int64_t to_unix_ms(std::chrono::system_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

HistoryWriter::HistoryWriter(HistoryDatabase& db, WriterOptions options)
    : db_(db), options_(options), last_flush_(std::chrono::steady_clock::now()) {}

HistoryWriter::~HistoryWriter() = default;

std::size_t HistoryWriter::identity_slot(const core::DeviceSnapshot& device) {
  Identity identity;
  identity.uuid = text_of(device, FieldId::Uuid);
  identity.name = text_of(device, FieldId::Name);
  identity.serial = text_of(device, FieldId::Serial);
  identity.pci_bus_id = text_of(device, FieldId::PciBusId);
  identity.index = device.index;
  identity.vendor = device.vendor;
  if (identity.uuid) {
    identity.key = *identity.uuid;
  } else if (identity.pci_bus_id) {
    identity.key = "pci:" + *identity.pci_bus_id;
  } else if (options_.source.imported) {
    identity.key = "import:" + options_.source.scenario + ":" + std::to_string(device.index);
  } else {
    identity.key = "index:" + std::to_string(device.index);
  }
  for (std::size_t i = 0; i < identities_.size(); ++i) {
    if (identities_[i].key == identity.key) {
      identities_[i] = std::move(identity);  // index or name may have changed; latest wins
      return i;
    }
  }
  identities_.push_back(std::move(identity));
  return identities_.size() - 1;
}

void HistoryWriter::add(const core::Snapshot& snapshot, const UserLookup& user_of) {
  const std::int64_t time_ms = to_unix_ms(snapshot.timestamp);
  const auto& columns = history_columns();
  for (const auto& device : snapshot.devices) {
    if (device.state != core::DeviceState::Ok) continue;
    std::size_t identity = identity_slot(device);
    GpuRow row{time_ms, identity, {}};
    row.values.reserve(columns.size());
    for (const auto& column : columns) row.values.push_back(encode_reading(column, device.get(column.field)));
    gpu_rows_.push_back(std::move(row));
    for (const auto& process : device.processes) {
      process_rows_.push_back(ProcessRow{time_ms, identity, process.pid, process.name,
                                         user_of ? user_of(process.pid) : std::nullopt,
                                         core::to_string(process.type), process.used_memory_bytes});
    }
  }
  if (snapshot.host) host_rows_.push_back(host_row(time_ms, *snapshot.host));  // the host at this sample's time
  drop_oldest_beyond_cap(gpu_rows_);
  drop_oldest_beyond_cap(process_rows_);
  drop_oldest_beyond_cap(host_rows_);
}

template <typename Rows>
void HistoryWriter::drop_oldest_beyond_cap(Rows& rows) {
  const std::size_t cap = std::max<std::size_t>(options_.max_buffered_rows, 1);
  if (rows.size() <= cap) return;
  // Drop a tenth of the cap at once, so a long outage costs O(1) amortized per row.
  std::size_t drop = std::min(rows.size(), rows.size() - cap + cap / 10);
  rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(drop));
  dropped_rows_ += drop;
}

bool HistoryWriter::flush_due(std::chrono::steady_clock::time_point now) const {
  if (pending_rows() == 0) return false;
  return pending_rows() >= options_.max_pending_rows || now - last_flush_ >= options_.flush_interval;
}

void HistoryWriter::prepare_statements() {
  if (insert_sample_) return;
  auto& sql = db_.sql();
  insert_sample_ = std::make_unique<SQLite::Statement>(sql, insert_sample_sql());
  insert_process_ = std::make_unique<SQLite::Statement>(
      sql,
      "INSERT OR REPLACE INTO process_samples (time_ms, gpu_id, pid, name, user, type, used_memory_bytes) "
      "VALUES (?, ?, ?, ?, ?, ?, ?)");
  upsert_gpu_ = std::make_unique<SQLite::Statement>(
      sql,
      "INSERT INTO gpus (gpu_key, uuid, gpu_index, name, serial, pci_bus_id, first_seen_ms, last_seen_ms, vendor) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT(gpu_key) DO UPDATE SET vendor = excluded.vendor, "
      "uuid = coalesce(excluded.uuid, uuid), gpu_index = excluded.gpu_index, name = coalesce(excluded.name, name), "
      "serial = coalesce(excluded.serial, serial), pci_bus_id = coalesce(excluded.pci_bus_id, pci_bus_id), "
      "first_seen_ms = min(first_seen_ms, excluded.first_seen_ms), "
      "last_seen_ms = max(last_seen_ms, excluded.last_seen_ms)");
  select_gpu_ = std::make_unique<SQLite::Statement>(sql, "SELECT id FROM gpus WHERE gpu_key = ?");
  upsert_source_ = std::make_unique<SQLite::Statement>(
      sql,
      "INSERT INTO sources (simulated, scenario, first_seen_ms, last_seen_ms) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT(simulated, scenario) DO UPDATE SET first_seen_ms = min(first_seen_ms, excluded.first_seen_ms), "
      "last_seen_ms = max(last_seen_ms, excluded.last_seen_ms)");
}

std::int64_t HistoryWriter::gpu_id_for(std::size_t slot, std::int64_t first_ms, std::int64_t last_ms) {
  const Identity& identity = identities_[slot];
  upsert_gpu_->reset();
  upsert_gpu_->bind(1, identity.key);
  bind_optional(*upsert_gpu_, 2, identity.uuid);
  upsert_gpu_->bind(3, static_cast<std::int64_t>(identity.index));
  bind_optional(*upsert_gpu_, 4, identity.name);
  bind_optional(*upsert_gpu_, 5, identity.serial);
  bind_optional(*upsert_gpu_, 6, identity.pci_bus_id);
  upsert_gpu_->bind(7, first_ms);
  upsert_gpu_->bind(8, last_ms);
  upsert_gpu_->bind(9, core::to_string(identity.vendor));
  upsert_gpu_->exec();
  auto known = gpu_ids_.find(identity.key);
  if (known != gpu_ids_.end()) return known->second;
  select_gpu_->reset();
  select_gpu_->bind(1, identity.key);
  select_gpu_->executeStep();
  std::int64_t id = select_gpu_->getColumn(0).getInt64();
  select_gpu_->reset();  // a statement left on a row keeps a read lock open
  gpu_ids_[identity.key] = id;
  return id;
}

core::Result<std::size_t> HistoryWriter::flush() {
  last_flush_ = std::chrono::steady_clock::now();
  if (pending_rows() == 0) return std::size_t{0};
  try {
    prepare_statements();
    SQLite::Transaction transaction(db_.sql(), SQLite::TransactionBehavior::IMMEDIATE);
    // gpus first: one upsert per GPU in this batch (its latest time), then the rows.
    std::vector<std::int64_t> first_time(identities_.size(), INT64_MAX), last_time(identities_.size(), INT64_MIN);
    for (const auto& row : gpu_rows_) {
      first_time[row.identity] = std::min(first_time[row.identity], row.time_ms);
      last_time[row.identity] = std::max(last_time[row.identity], row.time_ms);
    }
    std::vector<std::int64_t> ids(identities_.size(), -1);
    for (std::size_t slot = 0; slot < identities_.size(); ++slot) {
      if (last_time[slot] != INT64_MIN) ids[slot] = gpu_id_for(slot, first_time[slot], last_time[slot]);
    }
    if (!gpu_rows_.empty() && !options_.source.imported) {  // an import records its span in `imports
      // The batch's time span (slots without rows this batch hold INT64_MAX / INT64_MIN).
      upsert_source_->reset();
      upsert_source_->bind(1, options_.source.simulated ? 1 : 0);
      upsert_source_->bind(2, options_.source.scenario);
      upsert_source_->bind(3, *std::min_element(first_time.begin(), first_time.end()));
      upsert_source_->bind(4, *std::max_element(last_time.begin(), last_time.end()));
      upsert_source_->exec();
    }
    for (const auto& row : gpu_rows_) {
      auto& insert = *insert_sample_;
      insert.reset();
      insert.bind(1, static_cast<std::int64_t>(row.time_ms));
      insert.bind(2, static_cast<std::int64_t>(ids[row.identity]));
      for (std::size_t i = 0; i < row.values.size(); ++i) bind_value(insert, static_cast<int>(i) + 3, row.values[i]);
      insert.exec();
    }
    for (const auto& row : process_rows_) {
      auto& insert = *insert_process_;
      insert.reset();
      insert.bind(1, static_cast<std::int64_t>(row.time_ms));
      insert.bind(2, static_cast<std::int64_t>(ids[row.identity]));
      insert.bind(3, static_cast<std::int64_t>(row.pid));
      insert.bind(4, row.name);
      bind_optional(insert, 5, row.user);
      insert.bind(6, row.type);
      bind_optional(insert, 7, row.used_memory_bytes);
      insert.exec();
    }
    host_writer_.write(db_.sql(), host_rows_);
    transaction.commit();
    std::size_t written = gpu_rows_.size() + process_rows_.size();  // GPU and process rows, as before the host
    gpu_rows_.clear();
    process_rows_.clear();
    host_rows_.clear();
    return written;
  } catch (const SQLite::Exception& e) {
    gpu_ids_.clear();  // ids assigned in the rolled-back transaction are void
    return core::make_error(std::string("cannot write history to ") + db_.path() + ": " + e.what(), 1);
  }
}

}  // namespace gpuwatch::store
