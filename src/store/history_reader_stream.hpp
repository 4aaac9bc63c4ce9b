#pragma once
// Streaming read of the history: one core::Snapshot per sample time handed to a callback,
// without building the whole range in memory. One Snapshot and one DeviceSnapshot per GPU
// are reused from row to row (only the fields the reader writes are set again), the process
// rows are merged in step with the GPU rows (both in (time_ms, gpu_id) order), and
// HistoryQuery::columns can restrict the columns read. read_history is built on it.
#include <cstddef>
#include <functional>

#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "store/history_database.hpp"
#include "store/history_reader.hpp"

namespace gpuwatch::store {

// Called once per sample time, in time order. The snapshot and its devices belong to the
// reader and are reused for the next call: copy what must outlive the call. The visitor may
// change field values (history::fill_max_sm_clock does); a change to a field the reader writes
// (identity, Timestamp, the columns read, processes) is undone at the next row of that GPU,
// one to any other field stays. It must not add or remove devices.
using SnapshotVisitor = std::function<void(core::Snapshot&)>;

// Snapshots of QUERY (range, GPU, resolution, statistic, limit, processes, columns) exactly as
// read_history gives them, one at a time. Returns how many snapshots were visited. Exceptions
// the visitor throws pass through.
core::Result<std::size_t> for_each_snapshot(const HistoryDatabase& db, const HistoryQuery& query,
                                            const SnapshotVisitor& visit);

}  // namespace gpuwatch::store
