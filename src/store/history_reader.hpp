#pragma once
// Read queries over the history: samples in a time range, optionally of one GPU,
// given back as core::Snapshots (one per sample time) so every renderer of live
// data (query CSV/JSON, tables) works on history too.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "core/snapshot.hpp"
#include "store/history_database.hpp"

namespace gpuwatch::store {

// Which table read_history reads: raw samples, or the rollups of retention
// (store/history_retention.hpp) with one of their statistics per column.
enum class Resolution { Raw, Minute, Hour };
enum class Statistic { Avg, Min, Max };

struct HistoryQuery {
  std::optional<std::int64_t> since_ms;  // inclusive, Unix ms
  std::optional<std::int64_t> until_ms;  // inclusive, Unix ms
  std::optional<unsigned> gpu_index;     // NVML index at recording time
  std::optional<std::string> gpu_uuid;
  bool processes = false;                // fill DeviceSnapshot::processes
  std::size_t limit = 0;                 // at most this many GPU rows (0: no limit)
  Resolution resolution = Resolution::Raw;  // Minute/Hour: one snapshot per bucket (time = bucket start)
  Statistic statistic = Statistic::Avg;     // of the rollup columns (Raw: unused)
  // Read only the columns of these fields (those of them that are recorded); nullopt: every
  // recorded column. A field whose column is not read stays NotRead. Identity, Timestamp and
  // processes are not columns: they are always there (processes when asked for).
  std::optional<std::vector<core::FieldId>> columns;
  // Raw resolution: attach the host row of each sample's time (schema 16, store/host_history.hpp)
  // as Snapshot::host; null where none was recorded. Rollups carry no host.
  bool host = false;
};

struct GpuRecord {
  std::int64_t id = 0;
  std::string gpu_key;
  std::optional<std::string> uuid, name, serial, pci_bus_id;
  std::optional<unsigned> index;
  std::int64_t first_seen_ms = 0, last_seen_ms = 0;
  core::Vendor vendor = core::Vendor::Nvidia;  // gpus.vendor (NVIDIA in a file from before schema 15)
};

// Every GPU the database has seen, by id.
core::Result<std::vector<GpuRecord>> read_gpus(const HistoryDatabase& db);

// An error (naming the GPUs there are) when QUERY picks a GPU, by index or UUID, that the
// database has never seen: `history --gpu 9` on a 1-GPU file is a mistake, not an empty range.
core::Result<void> check_gpu_selection(const HistoryDatabase& db, const HistoryQuery& query);

// Snapshots in time order (all in memory: store/history_reader_stream.hpp's for_each_snapshot
// hands them out one at a time instead). With a rollup resolution, each value is the bucket's
// statistic (rounded to the field's type; NULL when the bucket had no value) and there
// are no processes (process samples are not rolled up). Each device carries the recorded fields (NULL reads back as
// NotSupported, no value), its identity (Index, Uuid, Name, Serial, PciBusId, Vendor; DeviceSnapshot::vendor too) and the
// Timestamp field; every other field is NotRead. A column the file lacks (recorded by an older
// gpuwatch, opened read-only) reads as NULL.
core::Result<std::vector<core::Snapshot>> read_history(const HistoryDatabase& db, const HistoryQuery& query);

// One process as seen on one GPU over the range: for "which jobs ran, how long,
// how much memory at most". A pid seen with another name, or another recorded command line
// (store/process_commands.hpp: PID reuse), counts as another process.
struct ProcessSummary {
  std::optional<unsigned> gpu_index;
  std::optional<std::string> gpu_uuid;
  std::uint32_t pid = 0;
  std::string name;
  // The command line as recorded (schema 11, clipped); nullopt: not recorded (a file written
  // before schema 11, --no-record-commands, or /proc did not say). Renderers fall back to name.
  std::optional<std::string> command;
  std::optional<std::string> user;
  std::optional<std::uint64_t> max_used_memory_bytes;  // nullopt: never reported
  std::int64_t first_seen_ms = 0, last_seen_ms = 0;    // run time seen = last - first
  std::int64_t samples = 0;
};
// In order of first appearance. HistoryQuery's range and GPU filters apply.
core::Result<std::vector<ProcessSummary>> read_process_summaries(const HistoryDatabase& db, const HistoryQuery& query);

struct HistoryCounts {
  std::int64_t gpu_samples = 0, process_samples = 0, gpus = 0;
  std::optional<std::int64_t> first_ms, last_ms;
};
core::Result<HistoryCounts> count_history(const HistoryDatabase& db);

}  // namespace gpuwatch::store
