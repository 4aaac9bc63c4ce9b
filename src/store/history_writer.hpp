#pragma once
// Batched writer: add() buffers one snapshot (one gpu_samples row per device, one
// process_samples row per process, and with Snapshot::host one host_samples row and its
// host_process_trees rows, store/host_history.hpp); flush() writes everything buffered in ONE
// transaction. A crash loses at most what was buffered since the last flush.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "store/data_sources.hpp"
#include "store/history_columns.hpp"
#include "store/history_database.hpp"
#include "store/host_history.hpp"

namespace SQLite {
class Statement;
}

namespace gpuwatch::store {

struct WriterOptions {
  std::chrono::milliseconds flush_interval{5000};  // flush_due() after this long since the last flush
  std::size_t max_pending_rows = 50000;            // ... or once this many rows are buffered
  // While flushes fail (disk full, database locked), rows stay buffered for the next
  // try; beyond this many per table the oldest are dropped (counted in dropped_rows()).
  std::size_t max_buffered_rows = 200000;
  // Where the rows come from, recorded in `sources` with every flush (store/data_sources.hpp).
  DataSource source;
};

// Who runs a process (the store does no /proc lookups itself); nullopt: unknown.
using UserLookup = std::function<std::optional<std::string>(std::uint32_t pid)>;

// Milliseconds since the Unix epoch (the time_ms columns).
std::int64_t to_unix_ms(std::chrono::system_clock::time_point t);

// Holds prepared statements on DB: destroy the writer before the database.
class HistoryWriter {
 public:
  HistoryWriter(HistoryDatabase& db, WriterOptions options = {});
  ~HistoryWriter();
  HistoryWriter(const HistoryWriter&) = delete;
  HistoryWriter& operator=(const HistoryWriter&) = delete;

  // Buffers a snapshot. Devices that are lost or inaccessible get no row (absent, not zero).
  void add(const core::Snapshot& snapshot, const UserLookup& user_of = {});
  std::size_t pending_rows() const { return gpu_rows_.size() + process_rows_.size() + host_rows_.size(); }
  // Rows dropped because the buffer was full while flushes failed.
  std::size_t dropped_rows() const { return dropped_rows_; }
  bool flush_due(std::chrono::steady_clock::time_point now) const;
  // Writes the buffer in one transaction; returns the number of GPU and process rows written
  // (host rows go with them, uncounted). On
  // error the buffer is kept (the next flush retries it).
  core::Result<std::size_t> flush();

 private:
  struct Identity {
    std::string key;
    std::optional<std::string> uuid, name, serial, pci_bus_id;
    unsigned index = 0;
    core::Vendor vendor = core::Vendor::Nvidia;  // gpus.vendor (schema 15)
  };
  struct GpuRow {
    std::int64_t time_ms;
    std::size_t identity;  // into identities_
    std::vector<SqlValue> values;  // one per history_columns()
  };
  struct ProcessRow {
    std::int64_t time_ms;
    std::size_t identity;
    std::uint32_t pid;
    std::string name;
    std::optional<std::string> user;
    std::string type;
    std::optional<std::uint64_t> used_memory_bytes;
  };
  std::size_t identity_slot(const core::DeviceSnapshot& device);
  std::int64_t gpu_id_for(std::size_t identity, std::int64_t first_ms, std::int64_t last_ms);
  void prepare_statements();
  template <typename Rows>
  void drop_oldest_beyond_cap(Rows& rows);

  HistoryDatabase& db_;
  WriterOptions options_;
  std::vector<Identity> identities_;
  std::map<std::string, std::int64_t> gpu_ids_;  // gpu_key -> gpus.id (known in the database)
  std::vector<GpuRow> gpu_rows_;
  std::vector<ProcessRow> process_rows_;
  std::vector<HostRow> host_rows_;  // one per snapshot with a host sample
  HostRowWriter host_writer_;
  std::chrono::steady_clock::time_point last_flush_;
  std::size_t dropped_rows_ = 0;
  std::unique_ptr<SQLite::Statement> insert_sample_, insert_process_, upsert_gpu_, select_gpu_, upsert_source_;
};

}  // namespace gpuwatch::store
