#pragma once
// `gpuwatch report`: a per-GPU summary of a time range of the history. It covers the
// whole range from what retention left (store/history_retention.hpp): raw samples where
// they exist, 1-minute rollups before the first raw sample, 1-hour rollups before the
// first 1-minute row; a rollup row counts when its whole bucket ends before the finer
// source starts, so nothing is counted twice, and when its bucket starts in the range.
// Each source is read in ONE scan in primary-key order (time_ms, gpu_id), which SQLite
// streams with no sort; a GROUP BY gpu_id would sort every row first (2-3x slower).
// From rollups: means are weighted by the samples that had a value, idle share,
// throttle time and counter energy are exact (schema v3 counts, rollup_counts.hpp),
// maxima come from the max columns, p95 is approximate (a percentile of the bucket
// means, each standing for its samples) and processes are absent (process samples are
// kept only as long as raw samples). Absent data stays absent (nullopt), never 0.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"
#include "store/alert_log.hpp"
#include "store/data_sources.hpp"
#include "store/history_database.hpp"
#include "store/history_reader.hpp"
#include "store/jobs.hpp"
#include "store/process_owners.hpp"
#include "store/rollup_counts.hpp"  // kIdleBelowPercent, throttle_reasons()
#include "store/xid_log.hpp"

namespace gpuwatch::store {

struct ThrottleTime {
  std::string reason;
  std::int64_t samples = 0;
  double seconds = 0;  // samples x the GPU's sampling interval
};

// One chart bucket (averages / maxima over the samples in it); nullopt: no value.
struct ChartPoint {
  std::int64_t time_ms = 0;  // bucket start
  std::optional<double> utilization_percent, memory_used_bytes, power_w, temperature_c;
  std::optional<double> sm_clock_mhz;      // mean SM clock
  std::optional<double> held_back_share;   // of the samples with a clocks-event mask, 0..1 (kHeldBackBits)
};

struct GpuSummary {
  GpuRecord gpu;
  std::int64_t samples = 0;
  std::int64_t first_ms = 0, last_ms = 0;
  std::optional<double> sample_interval_s;  // median gap between samples
  std::int64_t rollup_samples = 0;          // of `samples`, those known only from rollups
  std::optional<double> mean_utilization_percent, p95_utilization_percent;
  bool p95_approximate = false;              // rollups were used for it
  std::optional<double> idle_share;  // of the samples with a utilization value, 0..1
  std::optional<std::uint64_t> peak_memory_used_bytes, memory_total_bytes;
  std::optional<double> mean_power_w, max_power_w;
  std::optional<double> energy_kwh;
  std::string energy_source;  // "counter", "estimated" (integrated power) or "" (no energy)
  std::optional<double> max_temperature_c;
  std::vector<ThrottleTime> throttling;  // every reason seen at least once; empty if mask absent
  bool throttle_mask_recorded = false;
  // Of the samples with a clocks-event mask (0..1; nullopt: no mask recorded): clocks held back
  // by heat (sw/hw thermal slowdown), by power (power cap, power brake), by any limit.
  std::optional<double> thermal_share, power_capped_share, held_back_share;
  std::optional<double> mean_sm_clock_mhz;  // over the samples with a value
  std::optional<double> max_sm_clock_mhz;   // clocks.max.sm: what the GPU can reach (schema 5)
  std::vector<ChartPoint> chart;
};

struct ReportQuery {
  std::optional<std::int64_t> since_ms, until_ms;  // inclusive, Unix ms
  std::size_t chart_points = 600;                  // at most this many buckets per GPU (0: no chart)
};

// The part of the range a source covered: first and last sample (rollups: bucket start).
struct SourceSpan {
  std::int64_t first_ms = 0, last_ms = 0;
};

struct HistoryReport {
  std::optional<std::int64_t> since_ms, until_ms;
  std::optional<SourceSpan> raw, rollup_1m, rollup_1h;  // nullopt: that source had nothing in range
  std::vector<GpuSummary> gpus;              // GPUs with samples in the range, by index
  std::vector<ProcessSummary> processes;
  // Where the range's samples came from: real NVML or the simulated driver (schema 4).
  std::vector<SourceRecord> data_sources;
  Provenance provenance;
  // `report --job ID`: the job whose range and GPUs this report covers (set by the caller).
  std::optional<JobRow> job;
  // `report --slurm-job ID` / `--pod NAME` (issue 15): the owner whose range and GPUs it covers.
  std::optional<OwnerWindow> owner;
  // The range's events, oldest first: Xids (schema 9) and alert events (schema 6), at most
  // kReportEventsRead of each (the newest); absent tables give none.
  std::vector<XidEventRow> xid_events;
  std::vector<AlertEventRow> alert_events;
};

inline constexpr std::size_t kReportEventsRead = 5000;

core::Result<HistoryReport> build_report(const HistoryDatabase& db, const ReportQuery& query);

// Energy in joules from a cumulative counter (mJ samples, in time order): the sum of
// the increases; a drop (counter reset, driver reload) adds nothing for that step.
double energy_from_counter_mj(const std::vector<double>& counter_mj);

}  // namespace gpuwatch::store
