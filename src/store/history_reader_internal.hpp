#pragma once
// Internals of read_history shared by history_reader.cpp and history_reader_unrolled.cpp.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "store/history_reader.hpp"

namespace SQLite {
class Statement;
}

namespace gpuwatch::store::reader_detail {

// " WHERE 1 AND time_ms >= :since ..." for QUERY's range and GPU; bind_filter binds it.
std::string filter_sql(const HistoryQuery& query);
void bind_filter(SQLite::Statement& statement, const HistoryQuery& query);

// A device with GPU's identity and the Timestamp field at TIME_MS.
core::DeviceSnapshot device_for(const GpuRecord& gpu, std::int64_t time_ms);

// --resolution 1m / 1h: appends to SNAPSHOTS the buckets of the rows after the newest rollup
// (raw samples; for 1h also 1-minute rows), aggregated as retention would. ROWS counts the
// device rows so far (query.limit bounds it).
void append_unrolled_buckets(const HistoryDatabase& db, const HistoryQuery& query,
                             const std::map<std::int64_t, const GpuRecord*>& gpu_by_id,
                             std::vector<core::Snapshot>& snapshots, std::size_t& rows);

}  // namespace gpuwatch::store::reader_detail
