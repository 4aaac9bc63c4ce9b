#pragma once
// Internals of read_history / for_each_snapshot shared by history_reader.cpp,
// history_reader_stream.cpp and history_reader_unrolled.cpp.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "store/history_columns.hpp"
#include "store/history_reader.hpp"

namespace SQLite {
class Statement;
}
struct sqlite3;
struct sqlite3_stmt;

namespace gpuwatch::store::reader_detail {

// " WHERE 1 AND time_ms >= :since ..." for QUERY's range and GPU; bind_filter binds it.
std::string filter_sql(const HistoryQuery& query);
void bind_filter(SQLite::Statement& statement, const HistoryQuery& query);

// A prepared statement read through SQLite's own API (sqlite3_column_*): SQLiteCpp's getColumn
// makes a Column (a shared_ptr copy) per value and hides the sqlite3_stmt, which long scans
// feel. Errors throw SQLite::Exception, as SQLiteCpp does.
class RawStatement {
 public:
  RawStatement(const HistoryDatabase& db, const std::string& sql);
  ~RawStatement();
  RawStatement(const RawStatement&) = delete;
  RawStatement& operator=(const RawStatement&) = delete;

  void bind_filter(const HistoryQuery& query);  // bind_filter's parameters
  void bind(const char* name, std::int64_t value);
  bool step();  // true while there is a row
  sqlite3_stmt* get() const { return statement_; }

 private:
  void check(int rc) const;
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
};

// The recorded columns QUERY asks for (HistoryQuery::columns), in history_columns() order.
std::vector<const HistoryColumn*> selected_columns(const HistoryQuery& query);

// The names of TABLE's columns (PRAGMA table_info).
std::set<std::string> table_columns(const HistoryDatabase& db, const std::string& table);

// NAME when PRESENT has it, else "NULL": a file recorded before a column was added, opened
// read-only (not migrated), reads that column as absent instead of failing.
std::string column_or_null(const std::string& name, const std::set<std::string>& present);

// A device with GPU's identity and the Timestamp field at TIME_MS.
core::DeviceSnapshot device_for(const GpuRecord& gpu, std::int64_t time_ms);

// --resolution 1m / 1h: appends to SNAPSHOTS the buckets of the rows after the newest rollup
// (raw samples; for 1h also 1-minute rows), aggregated as retention would, for COLUMNS
// (selected_columns). ROWS counts the device rows so far (query.limit bounds it).
void append_unrolled_buckets(const HistoryDatabase& db, const HistoryQuery& query,
                             const std::vector<const HistoryColumn*>& columns,
                             const std::map<std::int64_t, const GpuRecord*>& gpu_by_id,
                             std::vector<core::Snapshot>& snapshots, std::size_t& rows);

}  // namespace gpuwatch::store::reader_detail
